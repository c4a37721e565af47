package dev.outbox.reconcile;

import java.util.Locale;

/**
 * Where an outbox event stands, as the reconciler judges it once it is older than the pipeline's latency objective
 * (younger ones are {@link #IN_FLIGHT}). Each has a metric tag ({@link #tag()}).
 */
public enum Verdict {
    /** One ledger effect for the consumer: what every event must reach. */
    APPLIED,
    /** Younger than the latency objective: not judged yet. */
    IN_FLIGHT,
    /** Dead-lettered in the outbox by the relay: waits for an operator's requeue. */
    DEAD_LETTERED_BY_RELAY,
    /** On the consumer's dead-letter topic: waits for an operator's replay. */
    DEAD_LETTERED_BY_CONSUMER,
    /** Parked by the consumer behind a gap in its payment's versions: waits for the gap or an operator. */
    PARKED,
    /** Not on the topic: never published, or published and gone (deleted, or past the topic's retention). */
    MISSING_ON_TOPIC,
    /** On the topic, and no ledger effect: the consumer did not apply it. */
    ON_TOPIC_NOT_APPLIED,
    /** More than one ledger effect: the inbox failed. Must never happen. */
    APPLIED_MORE_THAN_ONCE;

    /** Whether the pipeline failed this event: no operator queue holds it and it is not applied exactly once. */
    public boolean broken() {
        return this == MISSING_ON_TOPIC || this == ON_TOPIC_NOT_APPLIED || this == APPLIED_MORE_THAN_ONCE;
    }

    /** The metric tag and JSON name: {@code on_topic_not_applied}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
