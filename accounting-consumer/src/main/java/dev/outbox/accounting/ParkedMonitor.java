package dev.outbox.accounting;

import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Reports events held back by a version gap: how many, and how long the oldest has waited. */
@Component
final class ParkedMonitor {

    private static final String PARKED = """
            SELECT count(*) AS parked,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(parked_at)), 0)::bigint AS oldest_seconds
              FROM parked_events
             WHERE consumer_name = :consumer
            """;

    private final JdbcClient jdbc;
    private final String consumer;
    private final AtomicLong parked = new AtomicLong();
    private final AtomicLong oldest = new AtomicLong();

    ParkedMonitor(JdbcClient jdbc, AccountingProperties properties, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.consumer = properties.consumerName();
        Gauge.builder("accounting_parked_events", parked, AtomicLong::get)
                .description("events held back by a version gap").register(meters);
        Gauge.builder("accounting_oldest_parked_age_seconds", oldest, AtomicLong::get).register(meters);
    }

    @Scheduled(fixedDelayString = "${accounting.monitor-interval:5s}")
    void refresh() {
        jdbc.sql(PARKED).param("consumer", consumer).query((rs, n) -> {
            parked.set(rs.getLong("parked"));
            oldest.set(rs.getLong("oldest_seconds"));
            return true;
        }).single();
    }
}
