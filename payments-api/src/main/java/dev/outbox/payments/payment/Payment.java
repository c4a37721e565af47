package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** A payment as stored. Status and version change only through the API's own operations. */
record Payment(
        UUID id,
        String clientId,
        BigDecimal amount,
        String currency,
        String description,
        BigDecimal refundedAmount,
        String status,
        long version,
        Instant createdAt,
        Instant updatedAt) {

    static final String CREATED = "CREATED";
    static final String PARTIALLY_REFUNDED = "PARTIALLY_REFUNDED";
    static final String REFUNDED = "REFUNDED";
}
