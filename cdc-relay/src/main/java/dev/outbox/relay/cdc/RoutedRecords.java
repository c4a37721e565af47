package dev.outbox.relay.cdc;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.contract.OccurredAt;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The Outbox Event Router's output as the one message format: the router placed the outbox columns as Connect
 * headers (typed: the version columns as numbers, occurred_at as Debezium's ISO-8601 zoned timestamp); here they
 * become an {@link EventEnvelope}, so a CDC record and a polled one are the same bytes on the wire.
 */
final class RoutedRecords {

    private RoutedRecords() {}

    /** {@code null} for heartbeats and anything that is not a routed outbox event. */
    static EventRecord toEventRecord(SourceRecord record) {
        if (record.topic().startsWith(DebeziumSettings.HEARTBEAT_TOPIC_PREFIX)
                || record.value() == null
                || record.headers().lastWithName(MessageHeaders.ID) == null) {
            return null;
        }
        EventEnvelope envelope = new EventEnvelope(
                UUID.fromString(text(record, MessageHeaders.ID)),
                text(record, MessageHeaders.EVENT_TYPE),
                Integer.parseInt(text(record, MessageHeaders.SCHEMA_VERSION)),
                Long.parseLong(text(record, MessageHeaders.AGGREGATE_VERSION)),
                OccurredAt.parse(text(record, MessageHeaders.OCCURRED_AT)),
                text(record, MessageHeaders.TRACEPARENT));
        return new EventRecord(
                record.topic(),
                String.valueOf(record.key()),
                envelope,
                String.valueOf(record.value()).getBytes(StandardCharsets.UTF_8));
    }

    /** The event id of a routed record, or {@code null}: enough to dead-letter a record that cannot be converted. */
    static UUID idOf(SourceRecord record) {
        try {
            String id = text(record, MessageHeaders.ID);
            return id == null ? null : UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String text(SourceRecord record, String name) {
        Header header = record.headers().lastWithName(name);
        return header == null || header.value() == null ? null : String.valueOf(header.value());
    }
}
