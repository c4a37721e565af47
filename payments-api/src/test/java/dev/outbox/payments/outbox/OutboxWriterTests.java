package dev.outbox.payments.outbox;

import java.time.Instant;
import java.util.UUID;

import dev.outbox.contract.EventTypes;
import dev.outbox.contract.ExamplePayloads;
import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import dev.outbox.payments.jdbc.Write;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutboxWriterTests {

    private final OutboxWriter writer = new OutboxWriter();

    private static OutboxEvent event(String type, String payload) {
        return event(type, EventTypes.SCHEMA_VERSION, payload);
    }

    private static OutboxEvent event(String type, int schemaVersion, String payload) {
        return new OutboxEvent(
                UUID.randomUUID(),
                EventTypes.PAYMENT,
                ExamplePayloads.key(),
                EventTypes.PAYMENT_CREATED.equals(type) ? 1 : 2,
                type,
                schemaVersion,
                payload,
                null,
                Instant.parse("2026-12-05T23:15:33Z"));
    }

    @Test
    void writesEveryValidExampleAsItIs() {
        for (Example example : ExamplePayloads.all()) {
            if (example.kind() != Kind.INVALID) {
                Write write = writer.insert(event(example.eventType(), example.payload()));
                assertThat(write.params().getValue("payload"))
                        .as(example.toString())
                        .isEqualTo(example.payload());
            }
        }
    }

    @Test
    void refusesEveryInvalidExampleAsASchemaViolation() {
        for (Example example : ExamplePayloads.all()) {
            if (example.kind() == Kind.INVALID) {
                assertThatThrownBy(() -> writer.insert(event(example.eventType(), example.payload())))
                        .as(example.toString())
                        .isInstanceOf(EventSchemaViolation.class)
                        .hasMessageStartingWith(example.eventType() + " v1 payload breaks its schema: ")
                        .hasMessageNotContaining("client a")
                        .hasMessageNotContaining("payment-1")
                        .hasMessageNotContaining("1E+3");
            }
        }
    }

    @Test
    void refusesAnEventTypeOrVersionTheContractDoesNotHave() {
        OutboxEvent unknown = event("PaymentCaptured", 1, "{}");
        assertThatThrownBy(() -> writer.insert(unknown))
                .isInstanceOf(EventSchemaViolation.class)
                .hasMessage("PaymentCaptured v1 payload breaks its schema: no schema for this event type and version");
        OutboxEvent unknownVersion = event(EventTypes.PAYMENT_CREATED, 2, "{}");
        assertThatThrownBy(() -> writer.insert(unknownVersion))
                .isInstanceOf(EventSchemaViolation.class)
                .hasMessage("PaymentCreated v2 payload breaks its schema: no schema for this event type and version");
    }
}
