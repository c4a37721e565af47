package dev.outbox.accounting.events;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Currency;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.contract.CloudEventHeaders;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventSchemas;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.InvalidEnvelope;
import dev.outbox.contract.PaymentPayloads;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Treats Kafka messages as untrusted input: bounded size, a valid envelope, the contract's JSON Schema of the event
 * type and schema version ({@link EventSchemas}), then what a schema cannot say: the record key is the payment id, the
 * amount is positive, at most the limit and at the currency's scale, the currency has minor units, the versions fit
 * the event. Anything else is poison: a {@link PoisonMessageException} whose message names the rule broken, never
 * the payload.
 */
@Component
public final class EventParser {

    private static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000000");
    private static final String PAYMENT_ID = field(PaymentPayloads.PaymentCreated.class, "paymentId");
    private static final String AMOUNT = field(PaymentPayloads.PaymentCreated.class, "amount");
    private static final String CURRENCY = field(PaymentPayloads.PaymentCreated.class, "currency");
    private static final String REFUND_ID = field(PaymentPayloads.PaymentRefunded.class, "refundId");

    private final JsonMapper json;
    private final int maxPayloadBytes;
    private final EventSchemas schemas = EventSchemas.load();

    public EventParser(JsonMapper json, AccountingProperties properties) {
        this.json = json;
        this.maxPayloadBytes = properties.maxPayloadBytes();
    }

    /** A record as it came off the topic. */
    public PaymentEvent parse(String key, org.apache.kafka.common.header.Headers headers, byte[] value) {
        EventEnvelope envelope;
        try {
            envelope = EventEnvelope.fromHeaders(headers);
            CloudEventHeaders.check(headers, envelope, key);
        } catch (InvalidEnvelope e) {
            throw new PoisonMessageException(e.getMessage());
        }
        return parse(new EventRecord("", key, envelope, value));
    }

    /** An event whose envelope is already typed (as stored when it was parked). */
    public PaymentEvent parse(EventRecord record) {
        byte[] value = record.payload();
        EventEnvelope envelope = record.envelope();
        if (value == null || value.length == 0) {
            throw new PoisonMessageException("empty payload");
        }
        if (value.length > maxPayloadBytes) {
            throw new PoisonMessageException("payload of " + value.length + " bytes exceeds " + maxPayloadBytes);
        }
        UUID paymentId = uuid(record.key(), "record key");
        String type = envelope.eventType();
        long version = envelope.aggregateVersion();
        if (!schemas.has(type, envelope.schemaVersion())) {
            throw new PoisonMessageException(
                    "unknown event type or schema version: " + printable(type) + " v" + envelope.schemaVersion());
        }
        String payloadJson = new String(value, StandardCharsets.UTF_8);
        JsonNode payload;
        try {
            payload = json.readTree(payloadJson);
        } catch (JacksonException e) {
            throw new PoisonMessageException("payload is not valid JSON");
        }
        List<String> violations = schemas.violations(type, envelope.schemaVersion(), payload);
        if (!violations.isEmpty()) {
            throw new PoisonMessageException(
                    "breaks schema " + type + " v" + envelope.schemaVersion() + ": " + String.join(", ", violations));
        }
        if (!paymentId.equals(uuid(text(payload, PAYMENT_ID), PAYMENT_ID))) {
            throw new PoisonMessageException(PAYMENT_ID + " does not match the record key");
        }
        String currency = currency(text(payload, CURRENCY));
        BigDecimal amount = amount(text(payload, AMOUNT), currency);
        if (EventTypes.PAYMENT_REFUNDED.equals(type)) {
            uuid(text(payload, REFUND_ID), REFUND_ID);
            if (version < 2) {
                throw new PoisonMessageException("a refund cannot be version " + version);
            }
            amount = amount.negate();
        } else if (version != 1) {
            throw new PoisonMessageException(EventTypes.PAYMENT_CREATED + " must be version 1, was " + version);
        }
        return new PaymentEvent(envelope, paymentId, amount, currency, payloadJson);
    }

    /** A payload field's name, taken from the contract's record so a renamed field fails here at start-up. */
    private static String field(Class<? extends Record> payload, String name) {
        for (var component : payload.getRecordComponents()) {
            if (component.getName().equals(name)) {
                return name;
            }
        }
        throw new IllegalStateException(payload.getSimpleName() + " has no field " + name);
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
            amount = new BigDecimal(value);
        } catch (NumberFormatException e) {
            throw new PoisonMessageException("amount is not a decimal number");
        }
        if (amount.signum() <= 0
                || amount.compareTo(MAX_AMOUNT) > 0
                || amount.stripTrailingZeros().scale()
                        > Currency.getInstance(currency).getDefaultFractionDigits()) {
            throw new PoisonMessageException("amount is not a valid " + currency + " amount");
        }
        return amount;
    }

    private static String printable(String text) {
        String clean = text.replaceAll("[^A-Za-z0-9_.-]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
