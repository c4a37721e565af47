package dev.outbox.relay.polling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The lease-based relay's settings.
 *
 * @param workers           concurrent claim loops in this process
 * @param batchSize         rows claimed per iteration
 * @param lease             how long a claim is exclusive; at least twice the producer's delivery timeout
 * @param idleSleep         pause after an iteration that claimed nothing
 * @param maxAttempts       claims after which a failing row is dead-lettered
 * @param backoffBase       delay unit of the retry schedule: 2^min(attempts, 9) x base
 * @param backoffCap        longest delay between two attempts
 * @param perAggregateOrder at most one message in flight per aggregate (costs parallelism within an aggregate)
 */
@ConfigurationProperties("relay.polling")
public record PollingProperties(
        @DefaultValue("2") int workers,
        @DefaultValue("100") int batchSize,
        @DefaultValue("30s") Duration lease,
        @DefaultValue("500ms") Duration idleSleep,
        @DefaultValue("12") int maxAttempts,
        @DefaultValue("1s") Duration backoffBase,
        @DefaultValue("300s") Duration backoffCap,
        @DefaultValue("false") boolean perAggregateOrder) {

    RetrySchedule retries() {
        return new RetrySchedule(backoffBase, backoffCap);
    }
}
