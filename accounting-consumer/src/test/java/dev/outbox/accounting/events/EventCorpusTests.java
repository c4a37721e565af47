package dev.outbox.accounting.events;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.stream.Stream;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.ExamplePayloads;
import dev.outbox.contract.ExamplePayloads.Example;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The consumer and the schema over the contract's one corpus of examples: the parser reads every valid example of every
 * version, refuses each one the schema refuses for the schema's reason, and refuses the ones only its own rules catch
 * (the amount's value and scale, the currency, the key) for its own.
 */
class EventCorpusTests {

    private final EventParser parser = new EventParser(
            JsonMapper.builder().build(),
            new AccountingProperties(
                    "accounting",
                    "payments.payment.events",
                    1024 * 1024,
                    4,
                    Duration.ofDays(30),
                    "",
                    Duration.ofSeconds(5),
                    Duration.ofMinutes(5),
                    500));

    static Stream<Example> examples() {
        return ExamplePayloads.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void theParserAgreesWithTheSchemaAndAddsItsOwnRules(Example example) {
        UUID key = ExamplePayloads.key();
        long version = EventTypes.PAYMENT_CREATED.equals(example.eventType()) ? 1 : 2;
        var headers = new EventEnvelope(
                        UUID.randomUUID(),
                        example.eventType(),
                        example.schemaVersion(),
                        version,
                        Instant.parse("2026-12-05T23:15:33Z"),
                        null)
                .toHeaders();
        byte[] value = example.payload().getBytes(StandardCharsets.UTF_8);
        switch (example.kind()) {
            case VALID -> {
                PaymentEvent event = parser.parse(key.toString(), headers, value);
                assertThat(event.paymentId()).isEqualTo(key);
                assertThat(event.ledgerAmount().abs()).isPositive();
            }
            case INVALID ->
                assertThatThrownBy(() -> parser.parse(key.toString(), headers, value))
                        .isInstanceOf(PoisonMessageException.class)
                        .message()
                        .satisfiesAnyOf(
                                m -> assertThat(m)
                                        .startsWith("breaks schema " + example.eventType() + " v"
                                                + example.schemaVersion() + ": "),
                                m -> assertThat(m).isEqualTo("payload is not valid JSON"));
            case BEYOND_SCHEMA ->
                assertThatThrownBy(() -> parser.parse(key.toString(), headers, value))
                        .isInstanceOf(PoisonMessageException.class)
                        .message()
                        .doesNotStartWith("breaks schema");
        }
    }
}
