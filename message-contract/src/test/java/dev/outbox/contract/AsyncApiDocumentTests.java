package dev.outbox.contract;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AsyncAPI document is a valid AsyncAPI 3.0.0 document and says what the contract says: the topic and its dead
 * letters, a message per event type whose payload is the published schema of the current version, the headers by
 * the contract's names and order, the key. The records the relays write are checked against it in cdc-relay
 * (SameRecordBothModesTests).
 */
class AsyncApiDocumentTests {

    private final AsyncApiDocument asyncApi = AsyncApiDocument.read();

    @Test
    void isAValidAsyncApi300Document() {
        assertThat(asyncApi.document().path("asyncapi").asString()).isEqualTo("3.0.0");
        assertThat(asyncApi.specificationViolations()).isEmpty();
    }

    @Test
    void theSpecificationSchemaRefusesABrokenDocument() {
        JsonNode broken = asyncApi.document().deepCopy();
        ((tools.jackson.databind.node.ObjectNode) broken.path("channels").path("paymentEvents")).put("address", 42);
        assertThat(AsyncApiDocument.of(broken).specificationViolations()).isNotEmpty();
    }

    @Test
    void theChannelsAreTheContractsTopics() {
        assertThat(asyncApi.document()
                        .path("channels")
                        .path("paymentEvents")
                        .path("address")
                        .asString())
                .isEqualTo(Topics.PAYMENT_EVENTS);
        assertThat(asyncApi.document()
                        .path("channels")
                        .path("paymentEventDeadLetters")
                        .path("address")
                        .asString())
                .isEqualTo(Topics.deadLetters(Topics.PAYMENT_EVENTS));
    }

    @Test
    void eachEventTypeIsAMessageWhosePayloadIsItsPublishedSchema() {
        TreeSet<String> names = new TreeSet<>(asyncApi.document()
                .path("channels")
                .path("paymentEvents")
                .path("messages")
                .propertyNames());
        assertThat(names).isEqualTo(new TreeSet<>(EventTypes.PAYMENT_EVENTS));
        for (String type : EventTypes.PAYMENT_EVENTS) {
            JsonNode message = asyncApi.message("paymentEvents", type);
            assertThat(message.path("name").asString()).isEqualTo(type);
            assertThat(asyncApi.payloadSchema(message))
                    .as(type)
                    .isEqualTo(EventSchemas.document(type, EventTypes.SCHEMA_VERSION));
        }
    }

    @Test
    void theHeadersAreTheContractsInItsOrder() {
        JsonNode headers = asyncApi.resolve(
                asyncApi.message("paymentEvents", EventTypes.PAYMENT_CREATED).path("headers"));
        List<String> names = new ArrayList<>(headers.path("properties").propertyNames());
        List<String> all = new ArrayList<>(MessageHeaders.ALL);
        all.addAll(CloudEventHeaders.ALL);
        assertThat(names).isEqualTo(all);
        List<String> required = new ArrayList<>();
        headers.path("required").forEach(n -> required.add(n.asString()));
        all.remove(MessageHeaders.TRACEPARENT);
        assertThat(required).as("all but the trace context").isEqualTo(all);
        JsonNode dlt = asyncApi.resolve(asyncApi.message("paymentEventDeadLetters", "DeadLetteredPaymentEvent")
                .path("headers"));
        assertThat(dlt.path("properties").propertyNames())
                .containsExactly(DeadLetterHeaders.REASON, DeadLetterHeaders.HISTORY);
    }

    /** The envelope's own records of every valid example satisfy the document; a broken one does not. */
    @Test
    void recordsOfTheEnvelopeSatisfyTheDocumentAndBrokenOnesDoNot() {
        for (Example example : ExamplePayloads.all()) {
            if (example.kind() != Kind.VALID) {
                continue;
            }
            ProducerRecord<String, byte[]> record =
                    record(example, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            assertThat(asyncApi.violations("paymentEvents", record))
                    .as(example.toString())
                    .isEmpty();
        }
        Example created =
                ExamplePayloads.of(EventTypes.PAYMENT_CREATED, 1, Kind.VALID).get(0);
        ProducerRecord<String, byte[]> noTrace = record(created, null);
        assertThat(asyncApi.violations("paymentEvents", noTrace)).isEmpty();
        ProducerRecord<String, byte[]> badKey =
                new ProducerRecord<>(noTrace.topic(), null, "payment-1", noTrace.value(), noTrace.headers());
        assertThat(asyncApi.violations("paymentEvents", badKey))
                .singleElement()
                .asString()
                .startsWith("key: ");
        ProducerRecord<String, byte[]> deadLetter = new ProducerRecord<>(
                Topics.PAYMENT_EVENTS + ".DLT", null, "payment-1", "{not json".getBytes(StandardCharsets.UTF_8));
        assertThat(asyncApi.violations("paymentEventDeadLetters", deadLetter))
                .as("a dead letter without its reason")
                .singleElement()
                .asString()
                .contains(DeadLetterHeaders.REASON);
        deadLetter
                .headers()
                .add(DeadLetterHeaders.REASON, "poison: payload is not valid JSON".getBytes(StandardCharsets.UTF_8));
        assertThat(asyncApi.violations("paymentEventDeadLetters", deadLetter))
                .as("any key, any bytes")
                .isEmpty();
        ProducerRecord<String, byte[]> otherSource = record(created, null);
        otherSource.headers().remove(CloudEventHeaders.SOURCE);
        otherSource.headers().add(CloudEventHeaders.SOURCE, "urn:elsewhere".getBytes(StandardCharsets.UTF_8));
        assertThat(asyncApi.violations("paymentEvents", otherSource))
                .singleElement()
                .asString()
                .startsWith("headers: ")
                .contains(CloudEventHeaders.SOURCE);
        Example invalid = ExamplePayloads.of(EventTypes.PAYMENT_CREATED, 1, Kind.INVALID).stream()
                .filter(e -> e.name().equals("amount as a number"))
                .findFirst()
                .orElseThrow();
        assertThat(asyncApi.violations("paymentEvents", record(invalid, null)))
                .singleElement()
                .asString()
                .startsWith("payload: ");
        ProducerRecord<String, byte[]> otherTopic =
                new ProducerRecord<>("payments.order.events", null, noTrace.key(), noTrace.value(), noTrace.headers());
        assertThat(asyncApi.violations("paymentEvents", otherTopic))
                .singleElement()
                .asString()
                .startsWith("topic ");
    }

    private static ProducerRecord<String, byte[]> record(Example example, String traceparent) {
        EventEnvelope envelope = new EventEnvelope(
                UUID.fromString("01a2487e-4d99-7580-81e3-ccb90e764299"),
                example.eventType(),
                example.schemaVersion(),
                EventTypes.PAYMENT_CREATED.equals(example.eventType()) ? 1 : 2,
                Instant.parse("2026-12-05T23:15:33.123456Z"),
                traceparent);
        return new EventRecord(
                        Topics.PAYMENT_EVENTS,
                        ExamplePayloads.key().toString(),
                        envelope,
                        example.payload().getBytes(StandardCharsets.UTF_8))
                .toProducerRecord();
    }
}
