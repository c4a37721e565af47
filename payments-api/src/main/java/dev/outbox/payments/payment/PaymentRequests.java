package dev.outbox.payments.payment;

import java.math.BigDecimal;

import dev.outbox.payments.web.ApiException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.stereotype.Component;

/**
 * Parses request bodies strictly: unknown fields are refused, so status, ids and versions can never be set by
 * a client (no mass assignment).
 */
@Component
final class PaymentRequests {

    record CreatePayment(BigDecimal amount, String currency, String description) {
    }

    record CreateRefund(BigDecimal amount) {
    }

    private final ObjectReader createPayment;
    private final ObjectReader createRefund;

    PaymentRequests(JsonMapper json) {
        this.createPayment = strict(json, CreatePayment.class);
        this.createRefund = strict(json, CreateRefund.class);
    }

    NewPayment payment(byte[] body) {
        CreatePayment request = parse(createPayment, body);
        Money money = Money.of(request.amount(), Money.currency(request.currency()));
        String description = request.description();
        if (description != null && (description.length() > 140 || description.chars().anyMatch(Character::isISOControl))) {
            throw ApiException.invalid("description must be at most 140 printable characters.");
        }
        return new NewPayment(money, description);
    }

    BigDecimal refundAmount(byte[] body) {
        CreateRefund request = parse(createRefund, body);
        if (request.amount() == null) {
            throw ApiException.invalid("amount is required.");
        }
        return request.amount();
    }

    private static <T> T parse(ObjectReader reader, byte[] body) {
        if (body.length == 0) {
            throw ApiException.invalid("A JSON request body is required.");
        }
        try {
            T value = reader.readValue(body);
            if (value == null) {
                throw ApiException.invalid("A JSON object is required.");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.invalid("Unknown field '" + printable(e.getPropertyName()) + "'.");
        } catch (MismatchedInputException e) {
            throw ApiException.invalid("Field '" + printable(e.getPathReference()) + "' has the wrong type.");
        } catch (JacksonException e) {
            throw ApiException.invalid("The body is not well-formed JSON.");
        }
    }

    /** Echoes at most a short, printable fragment of caller input into an error. */
    private static String printable(String text) {
        String clean = text == null ? "" : text.replaceAll("[^A-Za-z0-9_.\\[\\]-]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }

    private static ObjectReader strict(JsonMapper json, Class<?> type) {
        return json.readerFor(type)
                .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .with(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    }

    record NewPayment(Money money, String description) {
    }
}
