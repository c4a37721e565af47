package dev.outbox.relay.outbox;

import java.util.concurrent.atomic.AtomicReference;

import dev.outbox.relay.RelayProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The outbox backlog as both modes see it: rows not yet published nor dead-lettered, and the age of the oldest
 * one, the signal to alert on. Every {@code relay.monitor-interval} the claim floor is raised and, as often as
 * {@link CountPacing} allows, the backlog counted, so that a scrape never queries the database and a large backlog
 * does not make the count a load of its own.
 */
@Component
final class PendingMonitor implements SchedulingConfigurer {

    private final Outbox outbox;
    private final RelayProperties relay;
    private final AtomicReference<Outbox.Backlog> backlog = new AtomicReference<>(new Outbox.Backlog(0, 0, 0, 0));
    private final CountPacing pacing = new CountPacing();

    PendingMonitor(Outbox outbox, RelayProperties relay, MeterRegistry meters) {
        this.outbox = outbox;
        this.relay = relay;
        Gauge.builder("outbox_pending", backlog, b -> b.get().pending())
                .description("outbox rows neither published nor dead-lettered")
                .register(meters);
        Gauge.builder("outbox_oldest_pending_age_seconds", backlog, b -> b.get().oldestSeconds())
                .description("age of the oldest pending outbox row")
                .register(meters);
        Gauge.builder("outbox_dead_lettered", backlog, b -> b.get().deadLettered())
                .description("outbox rows dead-lettered, waiting for an operator")
                .register(meters);
        Gauge.builder("outbox_claim_floor_rows", backlog, b -> b.get().pastFloor())
                .description("outbox rows from the claim floor on, published ones included: what a claim reads")
                .register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::refresh, relay.monitorInterval());
    }

    private void refresh() {
        long start = System.nanoTime();
        if (pacing.due(start)) {
            backlog.set(outbox.backlog());
            pacing.counted(start, System.nanoTime());
        } else {
            outbox.advanceFloor();
        }
    }
}
