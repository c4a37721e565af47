package dev.outbox.relay.publish;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * One outbox event on its way to Kafka, in the one message format both modes share: key = aggregate id,
 * value = the JSON payload as is, headers id, event_type, schema_version, aggregate_version, occurred_at and
 * traceparent.
 */
public record OutboxRecord(
        UUID id,
        String topic,
        String aggregateId,
        String eventType,
        String schemaVersion,
        String aggregateVersion,
        String occurredAt,
        String traceparent,
        String payloadJson) {

    ProducerRecord<String, byte[]> toProducerRecord() {
        RecordHeaders headers = new RecordHeaders();
        header(headers, "id", id.toString());
        header(headers, "event_type", eventType);
        header(headers, "schema_version", schemaVersion);
        header(headers, "aggregate_version", aggregateVersion);
        header(headers, "occurred_at", occurredAt);
        header(headers, "traceparent", traceparent);
        return new ProducerRecord<>(topic, null, aggregateId, payloadJson.getBytes(StandardCharsets.UTF_8), headers);
    }

    private static void header(RecordHeaders headers, String name, String value) {
        if (value != null) {
            headers.add(name, value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
