package dev.outbox.relay.polling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.outbox.contract.EventRecord;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.outbox.OutboxRow;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.security.ErrorText;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim-publish-mark iteration with one worker id, the lease protocol's relay step: claim a small batch
 * (committed at once), publish outside any transaction, mark what Kafka acknowledged, and schedule a retry with
 * backoff and jitter (or dead-letter) for what it did not. A lost lease is reported, never overwritten.
 */
final class PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(PollingWorker.class);

    /**
     * How a worker claims: the polling relay's settings, or the cdc-mode safety net's (rows older than its grace
     * period, never dead-lettered).
     *
     * @param minAge      only rows at least this old are claimed
     * @param maxAttempts claims after which a failing row is dead-lettered
     */
    record ClaimPolicy(
            int batchSize,
            Duration lease,
            Duration minAge,
            boolean perAggregateOrder,
            int maxAttempts,
            RetrySchedule retries) {}

    private final UUID workerId = UUID.randomUUID();
    private final ClaimPolicy policy;
    private final Outbox outbox;
    private final KafkaPublisher publisher;
    private final String topicPattern;
    private final Counter claimed;
    private final Counter recovered;
    private final Counter leaseLost;
    private final Counter deadLetters;
    private final DistributionSummary attempts;
    private final Timer latency;

    PollingWorker(
            ClaimPolicy policy,
            Outbox outbox,
            KafkaPublisher publisher,
            String topicPattern,
            String role,
            MeterRegistry meters) {
        this.policy = policy;
        this.outbox = outbox;
        this.publisher = publisher;
        this.topicPattern = topicPattern;
        this.claimed =
                Counter.builder("outbox_polling_claimed").tag("role", role).register(meters);
        this.recovered = Counter.builder("outbox_polling_expired_leases_recovered")
                .tag("role", role)
                .description("rows claimed again after another worker's lease expired")
                .register(meters);
        this.leaseLost = Counter.builder("outbox_polling_lease_lost")
                .tag("role", role)
                .description("marks refused because the lease had passed to another worker")
                .register(meters);
        this.deadLetters =
                Counter.builder("outbox_dead_letters").tag("mode", "polling").register(meters);
        this.attempts = DistributionSummary.builder("outbox_publish_attempts")
                .description("claims a message needed until Kafka acknowledged it")
                .register(meters);
        this.latency = Timer.builder("outbox_publish_latency")
                .tag("mode", "polling")
                .description("occurred_at -> acknowledged by Kafka")
                .publishPercentileHistogram()
                .register(meters);
    }

    /**
     * @return how many rows this iteration claimed (0 means the caller may idle)
     * @throws InterruptedException on shutdown: claimed rows keep their lease and are recovered when it expires
     */
    int runOnce() throws InterruptedException {
        return runOnce(null);
    }

    /**
     * @param deliveringSlot the slot whose stream is delivering (the safety net beside it): only rows that stream will
     *                       not deliver are claimed ({@link Outbox#claimBehindHorizon}); {@code null} for all
     * @return how many rows this iteration claimed (0 means the caller may idle)
     * @throws InterruptedException on shutdown: claimed rows keep their lease and are recovered when it expires
     */
    int runOnce(String deliveringSlot) throws InterruptedException {
        List<OutboxRow> batch = deliveringSlot != null
                ? outbox.claimBehindHorizon(
                        workerId, policy.batchSize(), policy.lease(), policy.minAge(), deliveringSlot)
                : outbox.claim(
                        workerId, policy.batchSize(), policy.lease(), policy.minAge(), policy.perAggregateOrder());
        if (batch.isEmpty()) {
            return 0;
        }
        claimed.increment(batch.size());
        batch.stream().filter(row -> row.previousLock() != null).forEach(row -> {
            recovered.increment();
            log.info("recovered event {} whose lease expired (attempt {})", row.id(), row.attempts());
        });
        List<EventRecord> records = new ArrayList<>(batch.size());
        for (OutboxRow row : batch) {
            records.add(row.toEventRecord(topicPattern));
        }
        List<Exception> outcomes = publisher.sendOnce(records);
        List<UUID> acknowledged = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < batch.size(); i++) {
            OutboxRow row = batch.get(i);
            if (outcomes.get(i) == null) {
                acknowledged.add(row.id());
                attempts.record(row.attempts());
                latency.record(Duration.between(row.occurredAt(), now));
            }
        }
        int marked = outbox.markPublished(acknowledged, workerId);
        if (marked < acknowledged.size()) {
            leaseLost.increment(acknowledged.size() - marked);
            log.warn(
                    "{} published events could not be marked: their lease passed to another worker "
                            + "(they may be published again, with the same id)",
                    acknowledged.size() - marked);
        }
        for (int i = 0; i < batch.size(); i++) {
            Exception failure = outcomes.get(i);
            if (failure != null) {
                scheduleRetry(batch.get(i), failure);
            }
        }
        return batch.size();
    }

    private void scheduleRetry(OutboxRow row, Exception failure) {
        String error = ErrorText.sanitize(failure);
        var outcome = outbox.scheduleRetry(
                row.id(), workerId, policy.retries().delayAfter(row.attempts()), error, policy.maxAttempts());
        if (outcome.isEmpty()) {
            leaseLost.increment();
            log.warn("retry of event {} not scheduled: its lease passed to another worker", row.id());
        } else if (outcome.get()) {
            deadLetters.increment();
            log.error("event {} dead-lettered after {} attempts: {}", row.id(), row.attempts(), error);
        } else {
            log.debug("event {} attempt {} failed: {}", row.id(), row.attempts(), error);
        }
    }
}
