package dev.outbox.payments.idempotency;

/** A request that collides with another request under the same (client, Idempotency-Key). */
public final class IdempotencyConflict extends RuntimeException {

    /** {@code REUSED}: the key was used for a different request; {@code IN_PROGRESS}: the first is still running. */
    public enum Kind {
        REUSED,
        IN_PROGRESS
    }

    private final Kind kind;

    IdempotencyConflict(Kind kind, String detail) {
        super(detail, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
