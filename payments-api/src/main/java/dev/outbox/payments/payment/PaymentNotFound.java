package dev.outbox.payments.payment;

/** No payment with that id belongs to the calling client (another client's payment is not found either). */
public final class PaymentNotFound extends RuntimeException {

    PaymentNotFound(String detail) {
        super(detail, null, false, false);
    }
}
