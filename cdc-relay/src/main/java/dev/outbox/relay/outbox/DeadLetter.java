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

    /** Which dead letters a requeue takes: any combination, all of them when every field is {@code null}. */
    public record Selection(UUID id, String eventType, Instant deadLetteredAfter, Instant deadLetteredBefore) {

        public static Selection one(UUID id) {
            return new Selection(id, null, null, null);
        }
    }
}
