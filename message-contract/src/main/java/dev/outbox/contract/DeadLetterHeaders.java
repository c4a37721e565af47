package dev.outbox.contract;

/**
 * The headers a consumer adds to a record it dead-letters to {@code <topic>.DLT}, next to the event's own
 * {@link MessageHeaders} (kept as they arrived) and spring-kafka's {@code kafka_dlt-*} headers (original topic,
 * partition, offset, exception). Values are UTF-8 text.
 */
public final class DeadLetterHeaders {

    /** Why the record was dead-lettered: sanitized and bounded, never a payload or a stack trace. */
    public static final String REASON = "dlt-reason";

    /**
     * One header per earlier stay in the dead-letter topic, oldest first, added when an operator replays the record
     * to its main topic: which dead-letter record it was ({@code <topic>-<partition>@<offset>}), where it had failed,
     * when and why. A replayed record that fails again carries them into its new dead-letter record, so the count
     * of these headers is how often it has been replayed.
     */
    public static final String HISTORY = "dlt-history";

    private DeadLetterHeaders() {}
}
