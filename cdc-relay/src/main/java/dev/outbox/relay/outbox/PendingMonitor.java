package dev.outbox.relay.outbox;

import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The outbox backlog as both modes see it: rows not yet published nor dead-lettered, and the age of the oldest
 * one, the signal to alert on. Refreshed on a schedule so a scrape never queries the database.
 */
@Component
final class PendingMonitor {

    private static final String BACKLOG = """
            SELECT count(*) AS pending,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(occurred_at)), 0)::bigint AS oldest_seconds,
                   (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL) AS dead_lettered
              FROM outbox_messages
             WHERE published_at IS NULL AND dead_lettered_at IS NULL
            """;

    private final JdbcClient jdbc;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestSeconds = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();

    PendingMonitor(JdbcClient jdbc, MeterRegistry meters) {
        this.jdbc = jdbc;
        Gauge.builder("outbox_pending", pending, AtomicLong::get)
                .description("outbox rows neither published nor dead-lettered (the article's outbox_pending_total)").register(meters);
        Gauge.builder("outbox_oldest_pending_age_seconds", oldestSeconds, AtomicLong::get)
                .description("age of the oldest pending outbox row").register(meters);
        Gauge.builder("outbox_dead_lettered", deadLettered, AtomicLong::get).register(meters);
    }

    @Scheduled(fixedDelayString = "${relay.monitor-interval:5s}")
    void refresh() {
        jdbc.sql(BACKLOG).query((rs, n) -> {
            pending.set(rs.getLong("pending"));
            oldestSeconds.set(rs.getLong("oldest_seconds"));
            deadLettered.set(rs.getLong("dead_lettered"));
            return true;
        }).single();
    }
}
