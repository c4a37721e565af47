package dev.outbox.relay.polling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The lease-based relay's settings.
 *
 * @param workers             concurrent claim loops in this process
 * @param batchSize           rows claimed per iteration
 * @param lease               how long a claim is exclusive; must exceed the producer's delivery timeout twice over
 * @param idleSleep           pause after an iteration that claimed nothing
 * @param maxAttempts         claims after which a failing row is dead-lettered
 * @param backoffBase         delay unit: the article's 2^min(attempts, 9) seconds, with a base of 1 s
 * @param backoffCap          longest delay between two attempts
 * @param perAggregateOrder   at most one message in flight per aggregate (costs parallelism within an aggregate)
 * @param safetyNetGrace      in cdc mode, rows still unpublished this long after occurred_at are swept by polling
 * @param safetyNetInterval   how often the cdc-mode safety net looks
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
        @DefaultValue("false") boolean perAggregateOrder,
        @DefaultValue("60s") Duration safetyNetGrace,
        @DefaultValue("10s") Duration safetyNetInterval) {
}
