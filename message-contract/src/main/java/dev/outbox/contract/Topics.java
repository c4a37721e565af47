package dev.outbox.contract;

/** One topic per aggregate type, named by a pattern; a consumer's dead letters go to {@code <topic>.DLT}. */
public final class Topics {

    public static final String AGGREGATE_TYPE_PLACEHOLDER = "{aggregateType}";
    public static final String DEFAULT_PATTERN = "payments." + AGGREGATE_TYPE_PLACEHOLDER + ".events";
    /** The payment aggregate's topic under the default pattern (a constant, for annotations; a test pins it). */
    public static final String PAYMENT_EVENTS = "payments.payment.events";

    private Topics() {}

    public static String forAggregate(String pattern, String aggregateType) {
        if (!pattern.contains(AGGREGATE_TYPE_PLACEHOLDER)) {
            throw new IllegalArgumentException("a topic pattern holds " + AGGREGATE_TYPE_PLACEHOLDER + ": " + pattern);
        }
        return pattern.replace(AGGREGATE_TYPE_PLACEHOLDER, aggregateType);
    }

    public static String deadLetters(String topic) {
        return topic + ".DLT";
    }
}
