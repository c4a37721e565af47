package dev.outbox.contract;

import java.util.Set;

/** The payment aggregate's events and the schema version of their payloads. */
public final class EventTypes {

    /** The outbox's aggregate_type of a payment: also the {@code {aggregateType}} of its topic. */
    public static final String PAYMENT = "payment";

    public static final String PAYMENT_CREATED = "PaymentCreated";
    public static final String PAYMENT_REFUNDED = "PaymentRefunded";
    public static final int SCHEMA_VERSION = 1;

    public static final Set<String> PAYMENT_EVENTS = Set.of(PAYMENT_CREATED, PAYMENT_REFUNDED);

    private EventTypes() {}
}
