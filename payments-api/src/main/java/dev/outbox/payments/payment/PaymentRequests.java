package dev.outbox.payments.payment;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Currency;
import java.util.Set;
import java.util.stream.Collectors;

import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a request's JSON object into a command, strictly: only the named fields (so status, ids and versions can
 * never be set by a client: no mass assignment), each a JSON string where a string is expected, amounts as
 * decimal strings, and free text that is printable, so what is stored is exactly what was answered.
 */
final class PaymentRequests {

    static final int MAX_DESCRIPTION = 140;
    private static final String AMOUNT = "A decimal string, never a JSON number: digits and at most one point, without "
            + "sign, exponent, spaces or leading zeros, positive, at most 1000000000, and with no more decimals than "
            + "the currency has (EUR 2, JPY 0, BHD 3).";

    /**
     * {@code POST /payments}'s body as the OpenAPI document describes it. The controller reads the body by hand
     * (below) so that nothing is coerced; these components are the only fields it accepts.
     */
    @Schema(name = "NewPayment", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    record PaymentBody(
            @Schema(
                    description = AMOUNT,
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    pattern = "^" + Money.DECIMAL_SYNTAX + "$",
                    example = "25.00")
            String amount,

            @Schema(
                    description = "An ISO 4217 code among the currencies this service takes (PAYMENTS_CURRENCIES).",
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    pattern = "^[A-Z]{3}$",
                    example = "EUR")
            String currency,

            @Schema(
                    description = "Optional free text: printable characters only (no control, format or "
                            + "private-use characters), no leading or trailing space, something visible.",
                    maxLength = MAX_DESCRIPTION,
                    example = "order 42")
            String description) {}

    /** {@code POST /payments/{id}/refunds}'s body as the OpenAPI document describes it; its only field. */
    @Schema(name = "NewRefund", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    record RefundBody(
            @Schema(
                    description = AMOUNT + " In the payment's currency; refunds never exceed the amount.",
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    pattern = "^" + Money.DECIMAL_SYNTAX + "$",
                    example = "5.00")
            String amount) {}

    private static final Set<String> PAYMENT_FIELDS = fields(PaymentBody.class);
    private static final Set<String> REFUND_FIELDS = fields(RefundBody.class);

    private PaymentRequests() {}

    /** The documented fields are the accepted ones: whatever the schema does not name is refused as unknown. */
    private static Set<String> fields(Class<? extends Record> body) {
        return Arrays.stream(body.getRecordComponents())
                .map(RecordComponent::getName)
                .collect(Collectors.toUnmodifiableSet());
    }

    record NewPayment(Money money, String description) {}

    /** @param currencies the codes payments may be made in */
    static NewPayment payment(ObjectNode body, Set<String> currencies) {
        onlyFields(body, PAYMENT_FIELDS);
        Currency currency = Money.currency(string(body, "currency"), currencies);
        Money money = Money.parse(string(body, "amount"), currency);
        return new NewPayment(money, FreeText.check("description", string(body, "description"), MAX_DESCRIPTION));
    }

    /** The refund's amount as written; it is parsed against the payment's currency once the payment is known. */
    static String refundAmount(ObjectNode body) {
        onlyFields(body, REFUND_FIELDS);
        String amount = string(body, "amount");
        if (amount == null) {
            throw new InvalidInput("amount is required.");
        }
        return amount;
    }

    private static void onlyFields(ObjectNode body, Set<String> allowed) {
        for (String name : body.propertyNames()) {
            if (!allowed.contains(name)) {
                throw new InvalidInput("Unknown field '" + FreeText.fragment(name) + "'.");
            }
        }
    }

    /** The field's text, {@code null} when absent or JSON null; any other JSON type is refused, never coerced. */
    private static String string(ObjectNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new InvalidInput("Field '" + field + "' must be a JSON string.");
        }
        return value.asString();
    }
}
