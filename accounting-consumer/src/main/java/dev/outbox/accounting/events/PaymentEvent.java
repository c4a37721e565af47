package dev.outbox.accounting.events;

import java.math.BigDecimal;
import java.util.UUID;

import dev.outbox.contract.EventEnvelope;

/**
 * A validated payment event: its envelope (event id, type, schema version, aggregate version, occurred_at, trace
 * context) and the fields of its payload that accounting uses. Unknown payload fields are tolerated and ignored.
 *
 * @param ledgerAmount the signed effect on the payment's ledger balance
 */
public record PaymentEvent(
        EventEnvelope envelope, UUID paymentId, BigDecimal ledgerAmount, String currency, String payloadJson) {

    public UUID id() {
        return envelope.id();
    }

    public String type() {
        return envelope.eventType();
    }

    public long version() {
        return envelope.aggregateVersion();
    }
}
