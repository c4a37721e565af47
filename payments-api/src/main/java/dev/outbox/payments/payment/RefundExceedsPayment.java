package dev.outbox.payments.payment;

/** A refund larger than what is left to refund on its payment: refused, nothing written. */
public final class RefundExceedsPayment extends RuntimeException {

    RefundExceedsPayment() {
        super("The refund exceeds what is left to refund on this payment.", null, false, false);
    }
}
