package dev.outbox.relay.outbox;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param age       how long published rows are kept for audit
 * @param interval  how often the cleanup runs
 * @param batchSize rows per delete statement
 */
@ConfigurationProperties("relay.retention")
public record RetentionProperties(
        @DefaultValue("7d") Duration age,
        @DefaultValue("5m") Duration interval,
        @DefaultValue("500") int batchSize) {}
