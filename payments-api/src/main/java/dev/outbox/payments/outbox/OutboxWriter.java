package dev.outbox.payments.outbox;

import java.sql.Timestamp;

import dev.outbox.payments.jdbc.Write;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.stereotype.Component;

/**
 * Appends events to the outbox: the one statement that inserts into outbox_messages, sent by {@code Writes} with the
 * business transaction's other writes (Writes refuses to run outside a transaction): an event never commits without
 * its change.
 */
@Component
public final class OutboxWriter {

    private static final String INSERT = """
            INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                         schema_version, payload, trace_parent, occurred_at, next_attempt_at)
            VALUES (:id, :aggregateType, :aggregateId, :aggregateVersion, :eventType,
                    :schemaVersion, CAST(:payload AS jsonb), :traceParent, :occurredAt, :occurredAt)
            """;

    /** The event's insert, for the caller to send with its transaction's other writes ({@code Writes}). */
    public Write insert(OutboxEvent event) {
        return new Write(
                INSERT,
                new MapSqlParameterSource()
                        .addValue("id", event.id())
                        .addValue("aggregateType", event.aggregateType())
                        .addValue("aggregateId", event.aggregateId())
                        .addValue("aggregateVersion", event.aggregateVersion())
                        .addValue("eventType", event.eventType())
                        .addValue("schemaVersion", event.schemaVersion())
                        .addValue("payload", event.payloadJson())
                        .addValue("traceParent", event.traceParent())
                        .addValue("occurredAt", Timestamp.from(event.occurredAt())));
    }
}
