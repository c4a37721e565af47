package dev.outbox.relay.cdc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import dev.outbox.contract.AsyncApiDocument;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.ExamplePayloads;
import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import dev.outbox.contract.Topics;
import dev.outbox.local.LocalCredentials;
import dev.outbox.relay.outbox.OutboxRow;
import dev.outbox.relay.publish.PublishProperties;
import io.debezium.data.Envelope;
import io.debezium.data.Json;
import io.debezium.data.Uuid;
import io.debezium.time.ZonedTimestamp;
import io.debezium.transforms.outbox.EventRouter;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One outbox row, two ways to Kafka: through Debezium's Outbox Event Router configured exactly as the relay
 * configures it (a change event shaped as the PostgreSQL connector emits it), and through the polling relay's
 * claim. Both must produce the same ProducerRecord: topic, key, value bytes and every header, in order.
 */
class SameRecordBothModesTests {

    static final String PATTERN = "t-x." + Topics.AGGREGATE_TYPE_PLACEHOLDER + ".events";

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-12-02T10:00:00.123456Z",
                "2026-12-02T10:00:00Z",
                "2026-12-02T10:00:00.100Z",
                "2026-02-28T23:59:59.999999Z"
            })
    void theCdcAndThePollingPathProduceTheSameRecord(String occurredAt) {
        OutboxRow row = new OutboxRow(
                UUID.randomUUID(),
                EventTypes.PAYMENT,
                UUID.randomUUID(),
                3,
                EventTypes.PAYMENT_REFUNDED,
                1,
                "{\"amount\": \"5.00\", \"currency\": \"EUR\", \"paymentId\": \"x\"}",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                Instant.parse(occurredAt),
                1,
                null);

        ProducerRecord<String, byte[]> polled = row.toEventRecord(PATTERN).toProducerRecord();
        ProducerRecord<String, byte[]> streamed =
                RoutedRecords.toEventRecord(routed(row)).toProducerRecord();

        assertSameRecord(streamed, polled);
        assertThat(streamed.topic()).isEqualTo("t-x.payment.events");
    }

    @Test
    void aRowWithoutTraceContextHasNoTraceparentHeaderEitherWay() {
        OutboxRow row = new OutboxRow(
                UUID.randomUUID(),
                EventTypes.PAYMENT,
                UUID.randomUUID(),
                1,
                EventTypes.PAYMENT_CREATED,
                1,
                "{}",
                null,
                Instant.parse("2026-12-02T10:00:00.5Z"),
                1,
                null);

        ProducerRecord<String, byte[]> streamed =
                RoutedRecords.toEventRecord(routed(row)).toProducerRecord();

        assertSameRecord(streamed, row.toEventRecord(PATTERN).toProducerRecord());
        assertThat(streamed.headers().lastHeader("traceparent")).isNull();
    }

    /**
     * Each valid example of the contract, through both paths under the default topic pattern: the same record, and
     * one the AsyncAPI document ({@code docs/asyncapi/payment-events.yaml}) describes: its channel's address, a
     * message of its event type, the headers, the key and the payload's schema.
     */
    @Test
    void bothPathsWriteWhatTheAsyncApiDocumentDescribes() {
        AsyncApiDocument asyncApi = AsyncApiDocument.read();
        for (Example example : ExamplePayloads.all()) {
            if (example.kind() != Kind.VALID) {
                continue;
            }
            boolean created = EventTypes.PAYMENT_CREATED.equals(example.eventType());
            OutboxRow row = new OutboxRow(
                    UUID.randomUUID(),
                    EventTypes.PAYMENT,
                    ExamplePayloads.key(),
                    created ? 1 : 2,
                    example.eventType(),
                    example.schemaVersion(),
                    example.payload(),
                    created ? "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" : null,
                    Instant.parse("2026-12-05T23:15:33.123456Z"),
                    1,
                    null);
            ProducerRecord<String, byte[]> polled =
                    row.toEventRecord(Topics.DEFAULT_PATTERN).toProducerRecord();
            ProducerRecord<String, byte[]> streamed = RoutedRecords.toEventRecord(routed(row, Topics.DEFAULT_PATTERN))
                    .toProducerRecord();
            assertSameRecord(streamed, polled);
            assertThat(asyncApi.violations("paymentEvents", streamed))
                    .as(example.toString())
                    .isEmpty();
            assertThat(asyncApi.violations("paymentEvents", polled))
                    .as(example.toString())
                    .isEmpty();
        }
    }

    /** Topic, partition, key, the value's bytes and every header's name and bytes, in order. */
    private static void assertSameRecord(
            ProducerRecord<String, byte[]> actual, ProducerRecord<String, byte[]> expected) {
        assertThat(actual.topic()).isEqualTo(expected.topic());
        assertThat(actual.partition()).isEqualTo(expected.partition());
        assertThat(actual.key()).isEqualTo(expected.key());
        assertThat(actual.value()).isEqualTo(expected.value());
        assertThat(actual.headers().toArray())
                .containsExactly(expected.headers().toArray());
    }

    /** The row as the PostgreSQL connector streams an insert, through the router as DebeziumSettings sets it up. */
    private static SourceRecord routed(OutboxRow row) {
        return routed(row, PATTERN);
    }

    private static SourceRecord routed(OutboxRow row, String topicPattern) {
        Schema columns = SchemaBuilder.struct()
                .name("outbox-relay.public.outbox_messages.Value")
                .field("id", Uuid.builder().build())
                .field("aggregate_type", Schema.STRING_SCHEMA)
                .field("aggregate_id", Uuid.builder().build())
                .field("aggregate_version", Schema.INT64_SCHEMA)
                .field("event_type", Schema.STRING_SCHEMA)
                .field("schema_version", Schema.INT32_SCHEMA)
                .field("payload", Json.builder().build())
                .field("trace_parent", Schema.OPTIONAL_STRING_SCHEMA)
                .field("occurred_at", ZonedTimestamp.builder().build())
                .build();
        Struct after = new Struct(columns)
                .put("id", row.id().toString())
                .put("aggregate_type", row.aggregateType())
                .put("aggregate_id", row.aggregateId().toString())
                .put("aggregate_version", row.aggregateVersion())
                .put("event_type", row.eventType())
                .put("schema_version", row.schemaVersion())
                .put("payload", row.payloadJson())
                .put("trace_parent", row.traceParent())
                .put(
                        "occurred_at",
                        ZonedTimestamp.toIsoString(OffsetDateTime.ofInstant(row.occurredAt(), ZoneOffset.UTC), null));
        Schema source = SchemaBuilder.struct()
                .name("io.debezium.connector.postgresql.Source")
                .field("db", Schema.STRING_SCHEMA)
                .field("table", Schema.STRING_SCHEMA)
                .build();
        Envelope envelope = Envelope.defineSchema()
                .withName("outbox-relay.public.outbox_messages.Envelope")
                .withRecord(columns)
                .withSource(source)
                .build();
        Struct value = envelope.create(
                after, new Struct(source).put("db", "payments").put("table", "outbox_messages"), Instant.now());
        SourceRecord change = new SourceRecord(
                Map.of(), Map.of(), "outbox-relay.public.outbox_messages", null, null, null, envelope.schema(), value);
        try (EventRouter<SourceRecord> router = new EventRouter<>()) {
            router.configure(routerSettings(topicPattern));
            return router.apply(change);
        }
    }

    private static Map<String, String> routerSettings(String topicPattern) {
        Properties all = DebeziumSettings.of(
                new CdcProperties(
                        "slot",
                        "publication",
                        "offsets",
                        java.time.Duration.ofSeconds(10),
                        java.time.Duration.ofSeconds(2),
                        java.time.Duration.ofSeconds(5),
                        4,
                        java.time.Duration.ofSeconds(1),
                        Map.of()),
                new DatabaseProperties(
                        "127.0.0.1",
                        5432,
                        "",
                        "payments",
                        LocalCredentials.RELAY_DB.user(),
                        LocalCredentials.RELAY_DB.password()),
                new PublishProperties("127.0.0.1:9092", topicPattern, null, Map.of()));
        Map<String, String> router = new HashMap<>();
        String prefix = "transforms.outbox.";
        all.stringPropertyNames().stream()
                .filter(k -> k.startsWith(prefix) && !k.equals(prefix + "type"))
                .forEach(k -> router.put(k.substring(prefix.length()), all.getProperty(k)));
        return router;
    }
}
