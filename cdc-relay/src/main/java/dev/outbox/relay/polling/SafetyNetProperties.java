package dev.outbox.relay.polling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The cdc-mode safety net: rows still unpublished this long after they occurred are published by a polling sweep.
 *
 * @param grace     age after which the net takes a row CDC has not delivered; beside its relay's own moving stream, only a
 *                  row that stream will not deliver
 * @param interval  how often it looks
 * @param batchSize rows per claim
 */
@ConfigurationProperties("relay.safety-net")
public record SafetyNetProperties(
        @DefaultValue("60s") Duration grace,
        @DefaultValue("10s") Duration interval,
        @DefaultValue("100") int batchSize) {}
