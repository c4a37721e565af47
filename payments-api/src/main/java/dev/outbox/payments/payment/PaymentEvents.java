package dev.outbox.payments.payment;

import java.time.Instant;
import java.util.UUID;

/**
 * The integration events a payment emits, schema version 1. Amounts are decimal strings so that no consumer
 * ever parses money as a binary float.
 */
final class PaymentEvents {

    static final String AGGREGATE_TYPE = "payment";
    static final int SCHEMA_VERSION = 1;

    record PaymentCreated(UUID paymentId, String clientId, String amount, String currency, Instant occurredAt) {
        static final String TYPE = "PaymentCreated";
    }

    record PaymentRefunded(UUID paymentId, UUID refundId, String amount, String currency, String refundedTotal,
            Instant occurredAt) {
        static final String TYPE = "PaymentRefunded";
    }

    private PaymentEvents() {
    }
}
