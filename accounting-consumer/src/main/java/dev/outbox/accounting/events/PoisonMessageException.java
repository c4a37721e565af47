package dev.outbox.accounting.events;

/**
 * A message that can never be applied, whatever the retries: malformed, of an unknown type or version, or with
 * invalid values. It goes to the dead-letter topic. Its message is written for operators and never quotes the
 * payload.
 */
public final class PoisonMessageException extends RuntimeException {

    public PoisonMessageException(String reason) {
        super(reason, null, false, false);
    }
}
