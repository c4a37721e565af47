package dev.outbox.relay.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Deletes published outbox rows older than the retention, in small batches (each its own short transaction) so the
 * cleanup never becomes an I/O spike. Pending and dead-lettered rows are never deleted. Deletes are not streamed by
 * CDC: the publication is insert-only.
 */
@Component
public final class OutboxRetention implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

    private final Outbox outbox;
    private final RetentionProperties settings;
    private final Counter deleted;

    OutboxRetention(Outbox outbox, RetentionProperties settings, MeterRegistry meters) {
        this.outbox = outbox;
        this.settings = settings;
        this.deleted = Counter.builder("outbox_retention_deleted").register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(new FixedDelayTask(this::purge, settings.interval(), settings.interval()));
    }

    /** @return rows deleted by this run */
    public int purge() {
        int total = 0;
        int n;
        do {
            n = outbox.deletePublishedOlderThan(settings.age(), settings.batchSize());
            total += n;
        } while (n == settings.batchSize());
        deleted.increment(total);
        if (total > 0) {
            log.info("retention deleted {} published outbox rows older than {}", total, settings.age());
        }
        return total;
    }
}
