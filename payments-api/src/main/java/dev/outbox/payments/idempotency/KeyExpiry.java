package dev.outbox.payments.idempotency;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Deletes expired idempotency keys in small batches. An expired key is also taken over by a new request with the
 * same key (see {@link IdempotencyKeys}), so the cleanup only reclaims space. Each batch is its own transaction.
 */
@Component
public final class KeyExpiry {

    private static final Logger log = LoggerFactory.getLogger(KeyExpiry.class);

    private static final String DELETE_BATCH = """
            DELETE FROM idempotency_keys
             WHERE (client_id, idempotency_key) IN (SELECT client_id, idempotency_key FROM idempotency_keys
                                                     WHERE expires_at < now()
                                                     ORDER BY expires_at
                                                     LIMIT :batchSize)
            """;

    private static final int BATCH = 500;

    private final JdbcClient jdbc;

    KeyExpiry(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return keys deleted by this run */
    @Scheduled(fixedDelayString = "${payments.idempotency.cleanup-interval:5m}",
            initialDelayString = "${payments.idempotency.cleanup-interval:5m}")
    public int purge() {
        int total = 0;
        int n;
        do {
            n = jdbc.sql(DELETE_BATCH).param("batchSize", BATCH).update();
            total += n;
        } while (n == BATCH);
        if (total > 0) {
            log.info("deleted {} expired idempotency keys", total);
        }
        return total;
    }
}
