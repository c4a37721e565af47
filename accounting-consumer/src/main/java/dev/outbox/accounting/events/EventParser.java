package dev.outbox.accounting.events;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Currency;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.stereotype.Component;

/**
 * Treats Kafka messages as untrusted input: bounded size, required headers, a strict schema per event type and
 * schema version. Anything else is poison.
 */
@Component
public final class EventParser {

    private static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000000");

    private final JsonMapper json;
    private final int maxPayloadBytes;

    EventParser(JsonMapper json, AccountingProperties properties) {
        this.json = json;
        this.maxPayloadBytes = properties.maxPayloadBytes();
    }

    public PaymentEvent parse(String key, byte[] value, String id, String type, String schemaVersion,
            String aggregateVersion, String traceparent) {
        if (value == null || value.length == 0) {
            throw new PoisonMessageException("empty payload");
        }
        if (value.length > maxPayloadBytes) {
            throw new PoisonMessageException("payload of " + value.length + " bytes exceeds " + maxPayloadBytes);
        }
        UUID eventId = uuid(id, "id header");
        UUID paymentId = uuid(key, "record key");
        long version = positiveLong(aggregateVersion, "aggregate_version header");
        int schema = (int) positiveLong(schemaVersion, "schema_version header");
        if (type == null) {
            throw new PoisonMessageException("missing event_type header");
        }
        if (schema != 1 || !(PaymentEvent.PAYMENT_CREATED.equals(type) || PaymentEvent.PAYMENT_REFUNDED.equals(type))) {
            throw new PoisonMessageException("unknown event type or schema version: " + printable(type) + " v" + schema);
        }
        String payloadJson = new String(value, StandardCharsets.UTF_8);
        JsonNode payload;
        try {
            payload = json.readTree(payloadJson);
        } catch (JacksonException e) {
            throw new PoisonMessageException("payload is not valid JSON");
        }
        if (payload == null || !payload.isObject()) {
            throw new PoisonMessageException("payload is not a JSON object");
        }
        if (!paymentId.equals(uuid(text(payload, "paymentId"), "paymentId"))) {
            throw new PoisonMessageException("paymentId does not match the record key");
        }
        String currency = currency(text(payload, "currency"));
        BigDecimal amount = amount(text(payload, "amount"), currency);
        if (PaymentEvent.PAYMENT_REFUNDED.equals(type)) {
            uuid(text(payload, "refundId"), "refundId");
            if (version < 2) {
                throw new PoisonMessageException("a refund cannot be version " + version);
            }
            amount = amount.negate();
        } else if (version != 1) {
            throw new PoisonMessageException("PaymentCreated must be version 1, was " + version);
        }
        return new PaymentEvent(eventId, type, schema, paymentId, version, amount, currency, payloadJson,
                traceparent);
    }

    private static String text(JsonNode payload, String field) {
        JsonNode node = payload.get(field);
        if (node == null || !node.isString()) {
            throw new PoisonMessageException("payload field " + field + " is missing or not a string");
        }
        return node.asString();
    }

    private static UUID uuid(String value, String what) {
        try {
            return UUID.fromString(value);
        } catch (RuntimeException e) {
            throw new PoisonMessageException(what + " is not a UUID");
        }
    }

    private static long positiveLong(String value, String what) {
        try {
            long n = Long.parseLong(value);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (RuntimeException e) {
            throw new PoisonMessageException(what + " is not a positive integer");
        }
    }

    private static String currency(String code) {
        if (!code.matches("[A-Z]{3}")) {
            throw new PoisonMessageException("currency is not an ISO 4217 code");
        }
        try {
            if (Currency.getInstance(code).getDefaultFractionDigits() < 0) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException e) {
            throw new PoisonMessageException("unknown currency " + code);
        }
        return code;
    }

    private static BigDecimal amount(String value, String currency) {
        BigDecimal amount;
        try {
            if (value.length() > 40) {
                throw new NumberFormatException();
            }
            amount = new BigDecimal(value);
        } catch (NumberFormatException e) {
            throw new PoisonMessageException("amount is not a decimal number");
        }
        if (amount.signum() <= 0 || amount.compareTo(MAX_AMOUNT) > 0
                || amount.stripTrailingZeros().scale() > Currency.getInstance(currency).getDefaultFractionDigits()) {
            throw new PoisonMessageException("amount is not a valid " + currency + " amount");
        }
        return amount;
    }

    private static String printable(String text) {
        String clean = text.replaceAll("[^A-Za-z0-9_.-]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
