package dev.outbox.payments.payment;

import java.util.Currency;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a request's JSON object into a command, strictly: only the named fields (so status, ids and versions can
 * never be set by a client: no mass assignment), each a JSON string where a string is expected, amounts as
 * decimal strings, and free text that is printable, so what is stored is exactly what was answered.
 */
final class PaymentRequests {

    private static final Set<String> PAYMENT_FIELDS = Set.of("amount", "currency", "description");
    private static final Set<String> REFUND_FIELDS = Set.of("amount");
    static final int MAX_DESCRIPTION = 140;

    private PaymentRequests() {}

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
