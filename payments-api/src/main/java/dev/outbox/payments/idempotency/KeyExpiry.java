package dev.outbox.payments.idempotency;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Deletes expired idempotency keys in small batches, every {@code payments.idempotency.cleanup-interval}. An
 * expired key is also taken over by a new request with the same key (see {@link IdempotencyKeys}), so the cleanup
 * only reclaims space.
 */
@Component
public final class KeyExpiry implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(KeyExpiry.class);

    private final IdempotencyKeys keys;
    private final IdempotencyProperties settings;

    KeyExpiry(IdempotencyKeys keys, IdempotencyProperties settings) {
        this.keys = keys;
        this.settings = settings;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(
                new FixedDelayTask(this::purge, settings.cleanupInterval(), settings.cleanupInterval()));
    }

    /** @return keys deleted by this run; each batch is its own short transaction */
    public int purge() {
        int total = 0;
        int n;
        do {
            n = keys.deleteExpired(settings.cleanupBatch());
            total += n;
        } while (n == settings.cleanupBatch());
        if (total > 0) {
            log.info("deleted {} expired idempotency keys", total);
        }
        return total;
    }
}
