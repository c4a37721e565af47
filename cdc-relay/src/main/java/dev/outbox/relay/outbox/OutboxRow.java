package dev.outbox.relay.outbox;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.Topics;

/**
 * One outbox row as a relay claimed it, typed, and the record it becomes: the columns map onto the message exactly
 * as {@link dev.outbox.contract.OutboxColumns} says, the same mapping the Debezium router follows in cdc mode.
 *
 * @param attempts     claims so far, this one included
 * @param previousLock the worker whose lease had expired when this claim took the row, or {@code null}
 */
public record OutboxRow(
        UUID id,
        String aggregateType,
        UUID aggregateId,
        long aggregateVersion,
        String eventType,
        int schemaVersion,
        String payloadJson,
        String traceParent,
        Instant occurredAt,
        int attempts,
        UUID previousLock) {

    public EventRecord toEventRecord(String topicPattern) {
        return new EventRecord(
                Topics.forAggregate(topicPattern, aggregateType),
                aggregateId.toString(),
                new EventEnvelope(id, eventType, schemaVersion, aggregateVersion, occurredAt, traceParent),
                payloadJson.getBytes(StandardCharsets.UTF_8));
    }
}
