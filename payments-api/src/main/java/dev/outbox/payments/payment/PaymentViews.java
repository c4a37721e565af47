package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Currency;
import java.util.UUID;

/** Response bodies. Amounts are strings at the currency's scale. */
final class PaymentViews {

    record PaymentView(
            UUID id,
            String amount,
            String currency,
            String description,
            String refundedAmount,
            String status,
            long version,
            Instant createdAt) {

        static PaymentView of(Payment p) {
            return new PaymentView(
                    p.id(),
                    scaled(p.amount(), p.currency()),
                    p.currency(),
                    p.description(),
                    scaled(p.refundedAmount(), p.currency()),
                    p.status(),
                    p.version(),
                    p.createdAt());
        }
    }

    record RefundView(
            UUID id, UUID paymentId, String amount, String currency, String paymentStatus, long paymentVersion) {}

    static String scaled(BigDecimal amount, String currency) {
        return amount.setScale(Currency.getInstance(currency).getDefaultFractionDigits())
                .toPlainString();
    }

    private PaymentViews() {}
}
