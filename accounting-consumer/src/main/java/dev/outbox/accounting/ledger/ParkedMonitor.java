package dev.outbox.accounting.ledger;

import java.util.concurrent.atomic.AtomicLong;

import dev.outbox.accounting.AccountingProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/** Reports events held back by a version gap: how many, and how long the oldest has waited. */
@Component
final class ParkedMonitor implements SchedulingConfigurer {

    private final LedgerRepository ledger;
    private final String consumer;
    private final java.time.Duration interval;
    private final AtomicLong parked = new AtomicLong();
    private final AtomicLong oldest = new AtomicLong();

    ParkedMonitor(LedgerRepository ledger, AccountingProperties properties, MeterRegistry meters) {
        this.ledger = ledger;
        this.consumer = properties.consumerName();
        this.interval = properties.monitorInterval();
        Gauge.builder("accounting_parked_events", parked, AtomicLong::get)
                .description("events held back by a version gap")
                .register(meters);
        Gauge.builder("accounting_oldest_parked_age_seconds", oldest, AtomicLong::get)
                .register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::refresh, interval);
    }

    /**
     * Reads the parked events and sets the gauges as one step: a scheduled refresh that read before an operator's skip
     * committed cannot overwrite the skip's own refresh with the count from before it.
     */
    synchronized void refresh() {
        LedgerRepository.ParkedSummary summary = ledger.parkedSummary(consumer);
        parked.set(summary.count());
        oldest.set(summary.oldestSeconds());
    }
}
