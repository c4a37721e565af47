package dev.outbox.payments.idempotency;

import java.util.UUID;

/**
 * The response of an operation, exactly as sent the first time, so that a retry with the same key gets the same
 * bytes back.
 *
 * @param replayed whether this instance was read back for a retry rather than produced now
 */
public record StoredResponse(int status, byte[] body, UUID resourceId, boolean replayed) {

    public static StoredResponse created(byte[] body, UUID resourceId) {
        return new StoredResponse(201, body, resourceId, false);
    }

    StoredResponse asReplay() {
        return new StoredResponse(status, body, resourceId, true);
    }
}
