package dev.outbox.accounting.events;

import java.math.BigDecimal;
import java.util.UUID;

/**
 * A validated payment event: the headers' identity (event id, type, schema version, aggregate version) and the
 * fields of its payload that accounting uses. Unknown payload fields are tolerated and ignored.
 *
 * @param ledgerAmount the signed effect on the payment's ledger balance
 */
public record PaymentEvent(
        UUID id,
        String type,
        int schemaVersion,
        UUID paymentId,
        long version,
        BigDecimal ledgerAmount,
        String currency,
        String payloadJson,
        String traceparent) {

    public static final String PAYMENT_CREATED = "PaymentCreated";
    public static final String PAYMENT_REFUNDED = "PaymentRefunded";
}
