package dev.outbox.contract;

import java.time.Instant;
import java.util.UUID;

/**
 * The JSON payloads of schema version 1. Amounts are decimal strings at the currency's scale, so no consumer ever
 * parses money as a binary float. A consumer tolerates fields it does not know; a new required field is a new schema
 * version.
 */
public final class PaymentPayloads {

    private PaymentPayloads() {}

    public record PaymentCreated(UUID paymentId, String clientId, String amount, String currency, Instant occurredAt) {}

    public record PaymentRefunded(
            UUID paymentId, UUID refundId, String amount, String currency, String refundedTotal, Instant occurredAt) {}
}
