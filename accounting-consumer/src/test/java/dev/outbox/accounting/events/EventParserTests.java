package dev.outbox.accounting.events;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.contract.CloudEventHeaders;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.MessageHeaders;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Messages as untrusted input, without a broker: what is an event, and why anything else is poison. */
class EventParserTests {

    static final UUID PAYMENT = UUID.fromString("7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e");
    final EventParser parser = new EventParser(
            JsonMapper.builder().build(),
            new AccountingProperties(
                    "accounting",
                    "payments.payment.events",
                    1024,
                    4,
                    Duration.ofDays(30),
                    "",
                    Duration.ofSeconds(5),
                    Duration.ofMinutes(5),
                    500));

    @Test
    void parsesACreatedAndARefundWithSignedAmounts() {
        PaymentEvent created = parse(headers(EventTypes.PAYMENT_CREATED, 1), created("12.50", "EUR"));
        assertThat(created.paymentId()).isEqualTo(PAYMENT);
        assertThat(created.ledgerAmount()).isEqualByComparingTo("12.50");
        assertThat(created.version()).isEqualTo(1);
        assertThat(created.envelope().occurredAt()).isEqualTo(Instant.parse("2026-12-02T10:00:00.5Z"));

        PaymentEvent refund = parse(headers(EventTypes.PAYMENT_REFUNDED, 2), refund("2.50", "EUR"));
        assertThat(refund.ledgerAmount()).isEqualTo(new BigDecimal("-2.50"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "not JSON                       | PaymentCreated   | 1 | {not json | payload is not valid JSON",
                "not an object                  | PaymentCreated   | 1 | [1] | breaks schema PaymentCreated v1: /: type",
                "unknown type                   | PaymentTeleported| 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | unknown event type or schema version: PaymentTeleported v1",
                "unknown schema version         | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | unknown event type or schema version: PaymentCreated v7",
                "created at version 2           | PaymentCreated   | 2 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | PaymentCreated must be version 1, was 2",
                "refund at version 1            | PaymentRefunded  | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"refundId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4f\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"refundedTotal\":\"1.00\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | a refund cannot be version 1",
                "refund without refund id       | PaymentRefunded  | 2 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"refundedTotal\":\"1.00\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | breaks schema PaymentRefunded v1: /: required refundId",
                "another payment than the key   | PaymentCreated   | 1 | {\"paymentId\":\"00000000-0000-0000-0000-000000000000\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | paymentId does not match the record key",
                "JPY with decimals              | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.5\",\"currency\":\"JPY\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | amount is not a valid JPY amount",
                "amount as a number             | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":1.00,\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | breaks schema PaymentCreated v1: /amount: type",
                "negative amount                | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"-1.00\",\"currency\":\"EUR\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | breaks schema PaymentCreated v1: /amount: pattern",
                "unknown currency               | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"ABC\",\"clientId\":\"c\",\"occurredAt\":\"2026-12-02T10:00:00Z\"} | unknown currency ABC",
                "no occurredAt                  | PaymentCreated   | 1 | {\"paymentId\":\"7d0c2b1e-3f4a-4b5c-8d6e-9f0a1b2c3d4e\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"clientId\":\"c\"} | breaks schema PaymentCreated v1: /: required occurredAt",
            })
    void anythingElseIsPoisonAndTheReasonNeverQuotesThePayload(
            String name, String type, long version, String payload, String reason) {
        int schemaVersion = name.equals("unknown schema version") ? 7 : 1;
        assertThatThrownBy(() -> parse(headers(type, schemaVersion, version), payload))
                .as(name)
                .isInstanceOf(PoisonMessageException.class)
                .hasMessage(reason)
                .hasMessageNotContaining("7d0c2b1e")
                .hasMessageNotContaining("{");
    }

    @Test
    void aMissingOrMalformedHeaderIsPoisonNamingTheHeader() {
        Headers noId = headers(EventTypes.PAYMENT_CREATED, 1);
        noId.remove(MessageHeaders.ID);
        assertThatThrownBy(() -> parse(noId, created("1.00", "EUR")))
                .isInstanceOf(PoisonMessageException.class)
                .hasMessage("missing id header");
        Headers withoutCloudEvents = headers(EventTypes.PAYMENT_CREATED, 1);
        CloudEventHeaders.ALL.forEach(withoutCloudEvents::remove);
        assertThatThrownBy(() -> parser.parse(
                        "not-a-uuid", withoutCloudEvents, created("1.00", "EUR").getBytes(StandardCharsets.UTF_8)))
                .hasMessage("record key is not a UUID");
    }

    /** The CloudEvents headers restate the envelope and the key: where they disagree, a dead letter, not a guess. */
    @Test
    void aCloudEventsHeaderThatDisagreesIsPoisonNamingTheHeader() {
        assertThat(parse(headers(EventTypes.PAYMENT_CREATED, 1), created("1.00", "EUR"))
                        .paymentId())
                .isEqualTo(PAYMENT);
        assertThatThrownBy(() -> parser.parse(
                        UUID.randomUUID().toString(),
                        headers(EventTypes.PAYMENT_CREATED, 1),
                        created("1.00", "EUR").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(PoisonMessageException.class)
                .hasMessage("ce_subject header disagrees with the record key");
        Headers otherType = headers(EventTypes.PAYMENT_CREATED, 1);
        otherType.remove(CloudEventHeaders.TYPE);
        otherType.add(CloudEventHeaders.TYPE, EventTypes.PAYMENT_REFUNDED.getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> parse(otherType, created("1.00", "EUR")))
                .isInstanceOf(PoisonMessageException.class)
                .hasMessage("ce_type header disagrees with the event_type header");
    }

    @Test
    void anOversizedOrEmptyPayloadIsRefusedUnread() {
        assertThatThrownBy(() -> parse(headers(EventTypes.PAYMENT_CREATED, 1), "x".repeat(2000)))
                .hasMessageContaining("exceeds 1024");
        assertThatThrownBy(() -> parse(headers(EventTypes.PAYMENT_CREATED, 1), ""))
                .hasMessage("empty payload");
    }

    @Test
    void aPayloadOfExactlyTheLimitIsReadAndOneByteMoreIsNot() {
        String payload = created("1.00", "EUR");
        String atLimit = payload + " ".repeat(1024 - payload.length());
        assertThat(parse(headers(EventTypes.PAYMENT_CREATED, 1), atLimit).ledgerAmount())
                .isEqualByComparingTo("1.00");
        assertThatThrownBy(() -> parse(headers(EventTypes.PAYMENT_CREATED, 1), atLimit + " "))
                .hasMessage("payload of 1025 bytes exceeds 1024");
    }

    /** refused: by the parser's own rules; spelling: by the schema (plain digits, no leading zero, 10 + 9 digits). */
    @ParameterizedTest(name = "{0} {1} is {2}")
    @CsvSource({
        "1000000000, EUR, accepted",
        "1000000000.00, EUR, accepted",
        "1000000000.01, EUR, refused",
        "0.01, EUR, accepted",
        "0.00, EUR, refused",
        "0, JPY, refused",
        "1.500, EUR, accepted",
        "1.005, EUR, refused",
        "1000, JPY, accepted",
        "1.5, JPY, refused",
        "01.00, EUR, spelling",
        "12345678901, JPY, spelling",
        "1.0000000000, EUR, spelling",
        "1e3, JPY, spelling",
    })
    void amountsAreBoundedInSignSizeAndTheCurrencysMinorUnits(String amount, String currency, String outcome) {
        if (outcome.equals("accepted")) {
            assertThat(parse(headers(EventTypes.PAYMENT_CREATED, 1), created(amount, currency))
                            .ledgerAmount())
                    .isEqualByComparingTo(amount);
        } else {
            String reason = outcome.equals("spelling")
                    ? "breaks schema PaymentCreated v1: /amount: pattern"
                    : "amount is not a valid " + currency + " amount";
            assertThatThrownBy(() -> parse(headers(EventTypes.PAYMENT_CREATED, 1), created(amount, currency)))
                    .isInstanceOf(PoisonMessageException.class)
                    .hasMessage(reason);
        }
    }

    @Test
    void aCurrencyWithoutMinorUnitsIsUnknownForPayments() {
        assertThatThrownBy(() -> parse(headers(EventTypes.PAYMENT_CREATED, 1), created("1", "XXX")))
                .hasMessage("unknown currency XXX");
    }

    @Test
    void anUnknownTypeIsNamedCleanedAndCutAtFortyCharacters() {
        String forty = "T".repeat(39) + "<";
        assertThatThrownBy(() -> parse(headers(forty, 1), created("1.00", "EUR")))
                .hasMessage("unknown event type or schema version: " + "T".repeat(39) + "? v1");
        assertThatThrownBy(() -> parse(headers(forty + "U", 1), created("1.00", "EUR")))
                .hasMessage("unknown event type or schema version: " + "T".repeat(39) + "?... v1");
    }

    private PaymentEvent parse(Headers headers, String payload) {
        return parser.parse(PAYMENT.toString(), headers, payload.getBytes(StandardCharsets.UTF_8));
    }

    private static Headers headers(String type, long version) {
        return headers(type, 1, version);
    }

    private static Headers headers(String type, int schemaVersion, long version) {
        EventEnvelope envelope = new EventEnvelope(
                UUID.randomUUID(), type, schemaVersion, version, Instant.parse("2026-12-02T10:00:00.5Z"), null);
        return new EventRecord("payments.payment.events", PAYMENT.toString(), envelope, new byte[0])
                .toProducerRecord()
                .headers();
    }

    private static String created(String amount, String currency) {
        return "{\"paymentId\":\"" + PAYMENT + "\",\"clientId\":\"c\",\"amount\":\"" + amount + "\",\"currency\":\""
                + currency + "\",\"occurredAt\":\"2026-12-02T10:00:00.5Z\",\"extra\":true}";
    }

    private static String refund(String amount, String currency) {
        return "{\"paymentId\":\"" + PAYMENT + "\",\"refundId\":\"" + UUID.randomUUID() + "\",\"amount\":\"" + amount
                + "\",\"currency\":\"" + currency + "\",\"refundedTotal\":\"" + amount
                + "\",\"occurredAt\":\"2026-12-02T10:00:00.5Z\"}";
    }
}
