package dev.outbox.payments.idempotency;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param ttl             how long a stored response is replayed for its key
 * @param lockTimeout     how long a duplicate waits for the request holding its key before answering 409
 * @param cleanupInterval how often expired keys are deleted
 * @param cleanupBatch    keys deleted per statement
 */
@ConfigurationProperties("payments.idempotency")
public record IdempotencyProperties(
        @DefaultValue("24h") Duration ttl,
        @DefaultValue("5s") Duration lockTimeout,
        @DefaultValue("5m") Duration cleanupInterval,
        @DefaultValue("500") int cleanupBatch) {}
