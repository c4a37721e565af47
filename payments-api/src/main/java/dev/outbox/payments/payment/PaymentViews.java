package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Currency;
import java.util.UUID;

import io.swagger.v3.oas.annotations.media.Schema;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/** Response bodies. Amounts are strings at the currency's scale. */
final class PaymentViews {

    private static final String AMOUNT =
            "A decimal string at the currency's scale (EUR \"25.00\", JPY \"25\"), never a JSON number.";
    private static final String DECIMAL = "^" + Money.DECIMAL_SYNTAX + "$";

    @Schema(name = "Payment", description = "A payment as its client sees it.")
    record PaymentView(
            @Schema(requiredMode = REQUIRED) UUID id,

            @Schema(requiredMode = REQUIRED, description = AMOUNT, pattern = DECIMAL, example = "25.00")
            String amount,

            @Schema(requiredMode = REQUIRED, description = "ISO 4217 code.", example = "EUR")
            String currency,

            @Schema(
                    types = {"string", "null"},
                    description = "As sent; null when none was sent.",
                    example = "order 42")
            String description,

            @Schema(
                    requiredMode = REQUIRED,
                    description = "The sum of its refunds. " + AMOUNT,
                    pattern = DECIMAL,
                    example = "0.00")
            String refundedAmount,

            @Schema(
                    requiredMode = REQUIRED,
                    allowableValues = {Payment.CREATED, Payment.PARTIALLY_REFUNDED, Payment.REFUNDED})
            String status,

            @Schema(
                    requiredMode = REQUIRED,
                    description = "1 when created, one more per refund: the aggregate_version of its latest event.",
                    example = "1")
            long version,

            @Schema(requiredMode = REQUIRED) Instant createdAt) {

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

    @Schema(name = "Refund", description = "A refund, and the state of its payment after it.")
    record RefundView(
            @Schema(requiredMode = REQUIRED) UUID id,
            @Schema(requiredMode = REQUIRED) UUID paymentId,

            @Schema(requiredMode = REQUIRED, description = AMOUNT, pattern = DECIMAL, example = "5.00")
            String amount,

            @Schema(requiredMode = REQUIRED, description = "ISO 4217 code.", example = "EUR")
            String currency,

            @Schema(
                    requiredMode = REQUIRED,
                    allowableValues = {Payment.PARTIALLY_REFUNDED, Payment.REFUNDED})
            String paymentStatus,

            @Schema(requiredMode = REQUIRED, description = "The payment's version after this refund.", example = "2")
            long paymentVersion) {}

    static String scaled(BigDecimal amount, String currency) {
        return amount.setScale(Currency.getInstance(currency).getDefaultFractionDigits())
                .toPlainString();
    }

    private PaymentViews() {}
}
