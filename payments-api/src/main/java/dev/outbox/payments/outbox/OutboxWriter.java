package dev.outbox.payments.outbox;

import java.sql.Timestamp;
import java.util.List;

import dev.outbox.contract.EventSchemas;
import dev.outbox.payments.jdbc.Write;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.stereotype.Component;

/**
 * Appends events to the outbox: the one statement that inserts into outbox_messages, sent by {@code Writes} with the
 * business transaction's other writes (Writes refuses to run outside a transaction): an event never commits without
 * its change. Each payload is checked against its event's JSON Schema first (message-contract's, loaded once): one
 * that breaks it is never written, and the transaction fails ({@link EventSchemaViolation}).
 */
@Component
public final class OutboxWriter {

    private static final String INSERT = """
            INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                         schema_version, payload, trace_parent, occurred_at, next_attempt_at)
            VALUES (:id, :aggregateType, :aggregateId, :aggregateVersion, :eventType,
                    :schemaVersion, CAST(:payload AS jsonb), :traceParent, :occurredAt, :occurredAt)
            """;

    private final EventSchemas schemas = EventSchemas.load();

    /** The event's insert, for the caller to send with its transaction's other writes ({@code Writes}). */
    public Write insert(OutboxEvent event) {
        List<String> violations = schemas.violations(event.eventType(), event.schemaVersion(), event.payloadJson());
        if (!violations.isEmpty()) {
            throw new EventSchemaViolation(event.eventType(), event.schemaVersion(), violations);
        }
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
