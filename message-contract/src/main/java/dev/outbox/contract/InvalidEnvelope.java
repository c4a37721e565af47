package dev.outbox.contract;

/** A record whose headers do not make an {@link EventEnvelope}: the message names what is wrong, never a value. */
public final class InvalidEnvelope extends RuntimeException {

    public InvalidEnvelope(String reason) {
        super(reason, null, false, false);
    }
}
