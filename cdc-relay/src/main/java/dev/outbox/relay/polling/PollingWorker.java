package dev.outbox.relay.polling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.outbox.security.ErrorText;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.OutboxRecord;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim-publish-mark iteration with one worker id, the article's relay step: claim a small batch (committed
 * at once), publish outside any transaction, mark what Kafka acknowledged, and schedule a retry with backoff
 * and jitter (or dead-letter) for what it did not. A lost lease is reported, never overwritten.
 */
final class PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(PollingWorker.class);

    private final UUID workerId = UUID.randomUUID();
    private final LeaseClaimer claimer;
    private final KafkaPublisher publisher;
    private final PublishProperties publish;
    private final PollingProperties settings;
    private final RetrySchedule retries;
    private final Duration grace;
    private final int maxAttempts;
    private final Counter claimed;
    private final Counter recovered;
    private final Counter leaseLost;
    private final Counter deadLetters;
    private final DistributionSummary attempts;
    private final Timer latency;

    /**
     * @param grace       only rows older than this are claimed (zero for the polling relay, the grace period for
     *                    the cdc-mode safety net)
     * @param maxAttempts attempts before dead-lettering
     */
    PollingWorker(LeaseClaimer claimer, KafkaPublisher publisher, PublishProperties publish,
            PollingProperties settings, Duration grace, int maxAttempts, String role, MeterRegistry meters) {
        this.claimer = claimer;
        this.publisher = publisher;
        this.publish = publish;
        this.settings = settings;
        this.retries = new RetrySchedule(settings.backoffBase(), settings.backoffCap());
        this.grace = grace;
        this.maxAttempts = maxAttempts;
        this.claimed = Counter.builder("outbox_polling_claimed").tag("role", role).register(meters);
        this.recovered = Counter.builder("outbox_polling_expired_leases_recovered").tag("role", role)
                .description("rows claimed again after another worker's lease expired").register(meters);
        this.leaseLost = Counter.builder("outbox_polling_lease_lost").tag("role", role)
                .description("marks refused because the lease had passed to another worker").register(meters);
        this.deadLetters = Counter.builder("outbox_dead_letters").tag("mode", "polling").register(meters);
        this.attempts = DistributionSummary.builder("outbox_publish_attempts")
                .description("claims a message needed until Kafka acknowledged it").register(meters);
        this.latency = Timer.builder("outbox_publish_latency").tag("mode", "polling")
                .description("occurred_at -> acknowledged by Kafka").publishPercentileHistogram().register(meters);
    }

    /**
     * @return how many rows this iteration claimed (0 means the caller may idle)
     * @throws InterruptedException on shutdown: claimed rows keep their lease and are recovered when it expires
     */
    int runOnce() throws InterruptedException {
        List<LeaseClaimer.Claimed> batch = claimer.claim(workerId, settings.batchSize(), settings.lease(), grace);
        if (batch.isEmpty()) {
            return 0;
        }
        claimed.increment(batch.size());
        batch.stream().filter(c -> c.previousLock() != null).forEach(c -> {
            recovered.increment();
            log.info("recovered event {} whose lease expired (attempt {})", c.id(), c.attempts());
        });
        List<OutboxRecord> records = new ArrayList<>(batch.size());
        for (LeaseClaimer.Claimed c : batch) {
            records.add(new OutboxRecord(c.id(), publish.topicFor(c.aggregateType()), c.aggregateId().toString(),
                    c.eventType(), String.valueOf(c.schemaVersion()), String.valueOf(c.aggregateVersion()),
                    c.occurredAt().toInstant().toString(), c.traceParent(), c.payloadJson()));
        }
        List<Exception> outcomes = publisher.sendOnce(records);
        List<UUID> acknowledged = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < batch.size(); i++) {
            LeaseClaimer.Claimed c = batch.get(i);
            if (outcomes.get(i) == null) {
                acknowledged.add(c.id());
                attempts.record(c.attempts());
                latency.record(Duration.between(c.occurredAt().toInstant(), now));
            }
        }
        int marked = claimer.markPublished(acknowledged, workerId);
        if (marked < acknowledged.size()) {
            leaseLost.increment(acknowledged.size() - marked);
            log.warn("{} published events could not be marked: their lease passed to another worker "
                    + "(they may be published again, with the same id)", acknowledged.size() - marked);
        }
        for (int i = 0; i < batch.size(); i++) {
            Exception failure = outcomes.get(i);
            if (failure != null) {
                scheduleRetry(batch.get(i), failure);
            }
        }
        return batch.size();
    }

    private void scheduleRetry(LeaseClaimer.Claimed c, Exception failure) {
        String error = ErrorText.sanitize(failure);
        var outcome = claimer.scheduleRetry(c.id(), workerId, retries.delayAfter(c.attempts()), error, maxAttempts);
        if (outcome.isEmpty()) {
            leaseLost.increment();
            log.warn("retry of event {} not scheduled: its lease passed to another worker", c.id());
        } else if (outcome.get()) {
            deadLetters.increment();
            log.error("event {} dead-lettered after {} attempts: {}", c.id(), c.attempts(), error);
        } else {
            log.debug("event {} attempt {} failed: {}", c.id(), c.attempts(), error);
        }
    }
}
