package dev.outbox.payments.web;

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
        @DefaultValue("") String apiKeys) {
}
