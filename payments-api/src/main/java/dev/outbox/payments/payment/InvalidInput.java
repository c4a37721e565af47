package dev.outbox.payments.payment;

/**
 * A request whose content the payments domain refuses (a malformed amount, an unknown currency, an unknown field).
 * The message is written for the caller: it names the field and the rule, never echoes more than a short,
 * printable fragment of the input.
 */
public final class InvalidInput extends RuntimeException {

    public InvalidInput(String detail) {
        super(detail, null, false, false);
    }
}
