package dev.outbox.relay.outbox;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Deletes published outbox rows older than the retention, in small batches so the cleanup never becomes an
 * I/O spike. Pending and dead-lettered rows are never deleted. Deletes are not streamed by CDC (the publication
 * is insert-only). Each batch is its own short transaction.
 */
@Component
public final class OutboxRetention {

    private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

    private static final String DELETE_BATCH = """
            DELETE FROM outbox_messages
             WHERE id IN (SELECT id FROM outbox_messages
                           WHERE published_at < now() - make_interval(secs => :retentionSeconds)
                           ORDER BY published_at
                           LIMIT :batchSize)
            """;

    /**
     * @param retention how long published rows are kept for audit
     * @param batchSize rows per delete statement
     */
    @ConfigurationProperties("relay.retention")
    public record Settings(@DefaultValue("7d") Duration retention, @DefaultValue("500") int batchSize) {
    }

    private final JdbcClient jdbc;
    private final Settings settings;
    private final Counter deleted;

    OutboxRetention(JdbcClient jdbc, Settings settings, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.settings = settings;
        this.deleted = Counter.builder("outbox_retention_deleted").register(meters);
    }

    /** @return rows deleted by this run */
    @Scheduled(fixedDelayString = "${relay.retention.interval:5m}", initialDelayString = "${relay.retention.interval:5m}")
    public int purge() {
        int total = 0;
        int n;
        do {
            n = jdbc.sql(DELETE_BATCH)
                    .param("retentionSeconds", (double) settings.retention().toSeconds())
                    .param("batchSize", settings.batchSize())
                    .update();
            total += n;
        } while (n == settings.batchSize());
        deleted.increment(total);
        if (total > 0) {
            log.info("retention deleted {} published outbox rows older than {}", total, settings.retention());
        }
        return total;
    }
}
