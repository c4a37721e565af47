package dev.outbox.payments.web;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * HTTP edge settings.
 *
 * @param maxBodyBytes largest request body accepted; larger ones get 413 before any parsing
 * @param apiKeys      {@code client=sha256hex,...}: the clients and the SHA-256 of their API keys
 */
@ConfigurationProperties("payments")
public record ApiProperties(
        @DefaultValue("16384") int maxBodyBytes,
        @DefaultValue("") String apiKeys,
        @DefaultValue Idempotency idempotency) {

    /**
     * @param ttl         how long a stored response is replayed for its key
     * @param lockTimeout how long a duplicate waits for the request holding its key before answering 409
     */
    public record Idempotency(@DefaultValue("24h") Duration ttl, @DefaultValue("5s") Duration lockTimeout) {
    }
}
