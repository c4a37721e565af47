package dev.outbox.relay.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * A dead-lettered outbox row as an operator sees it. The payload is {@link #REDACTED} unless asked for by id.
 *
 * @param lastError the sanitized reason: never a payload or a credential
 */
public record DeadLetter(
        UUID id,
        String aggregateType,
        UUID aggregateId,
        long aggregateVersion,
        String eventType,
        int attempts,
        String lastError,
        Instant occurredAt,
        Instant deadLetteredAt,
        String payload) {

    public static final String REDACTED = "<redacted: ?includePayload=true>";

    /**
     * Which dead letters a list or a requeue takes: any combination, all of them when every field is {@code null}.
     *
     * @param reason a part of the sanitized reason (e.g. {@code RecordTooLargeException})
     * @param cause  a failure group's cause ({@link Group#cause()}): the reason with its UUIDs and numbers replaced
     */
    public record Selection(
            UUID id,
            String eventType,
            String reason,
            String cause,
            Instant deadLetteredAfter,
            Instant deadLetteredBefore) {

        public static Selection one(UUID id) {
            return new Selection(id, null, null, null, null, null);
        }

        public boolean isEverything() {
            return id == null
                    && eventType == null
                    && reason == null
                    && cause == null
                    && deadLetteredAfter == null
                    && deadLetteredBefore == null;
        }
    }

    /**
     * Dead letters of one cause and event type.
     *
     * @param causeClass the exception's simple name, the reason's first part
     * @param cause      the sanitized reason with its UUIDs and numbers replaced ({@code <uuid>}, {@code <n>})
     */
    public record Group(
            String causeClass, String cause, String eventType, long deadLetters, Instant firstSeen, Instant lastSeen) {}

    /**
     * The set a selection takes, as a dry run shows it and a requeue checks it: how many rows, and the SHA-256 of
     * their ids in order, which only the same set has.
     *
     * @param asOf when the set was read: dead letters made later are not in it
     */
    public record Matched(long deadLetters, String digest, Instant asOf) {}

    /**
     * What a requeue did.
     *
     * @param matched  the set the selection took when it ran
     * @param requeued rows requeued: all of the set, or none when it was not the expected one
     */
    public record Requeue(Matched matched, int requeued) {}

    /** One audited requeue. */
    public record Audit(
            long id, String requestedBy, Instant requestedAt, String selection, int requeued, String digest) {}
}
