package dev.outbox.accounting;

import dev.outbox.contract.Topics;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param consumerName    this consumer's name in the inbox; a second consumer of the same events uses another
 * @param topic           the payment events topic; poison messages go to {@code <topic>.DLT}
 * @param maxPayloadBytes payloads larger than this are refused as poison, never parsed
 * @param maxAttempts     attempts for an unclassified failure before the record is dead-lettered; transient
 *                        database failures are retried without limit
 * @param inboxRetention  how long inbox rows are kept; must exceed the topic's retention (checked at start-up)
 * @param ledgerReaders   {@code name=sha256hex,...}: principals who may read the ledger endpoint besides the admin
 *                        token's holder (auditors); only the SHA-256 of their tokens is configured
 * @param monitorInterval how often the parked events are counted for the metrics
 * @param retentionInterval how often old inbox rows are deleted
 * @param retentionBatchSize inbox rows deleted per statement
 */
@ConfigurationProperties("accounting")
public record AccountingProperties(
        @DefaultValue("accounting") String consumerName,
        @DefaultValue(Topics.PAYMENT_EVENTS) String topic,
        @DefaultValue("65536") int maxPayloadBytes,
        @DefaultValue("4") int maxAttempts,
        @DefaultValue("30d") java.time.Duration inboxRetention,
        @DefaultValue("") String ledgerReaders,
        @DefaultValue("5s") java.time.Duration monitorInterval,
        @DefaultValue("5m") java.time.Duration retentionInterval,
        @DefaultValue("500") int retentionBatchSize) {}
