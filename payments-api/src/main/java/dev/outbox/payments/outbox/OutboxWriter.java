package dev.outbox.payments.outbox;

import java.sql.Timestamp;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends events to the outbox: the one statement that inserts into outbox_messages. Must join the business
 * transaction: an event never commits without its change.
 */
@Component
public final class OutboxWriter {

    private static final String INSERT = """
            INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                         schema_version, payload, trace_parent, occurred_at, next_attempt_at)
            VALUES (:id, :aggregateType, :aggregateId, :aggregateVersion, :eventType,
                    :schemaVersion, CAST(:payload AS jsonb), :traceParent, :occurredAt, :occurredAt)
            """;

    private final JdbcClient jdbc;

    public OutboxWriter(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public void append(OutboxEvent event) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("an outbox event must be written in its business transaction");
        }
        jdbc.sql(INSERT)
                .param("id", event.id())
                .param("aggregateType", event.aggregateType())
                .param("aggregateId", event.aggregateId())
                .param("aggregateVersion", event.aggregateVersion())
                .param("eventType", event.eventType())
                .param("schemaVersion", event.schemaVersion())
                .param("payload", event.payloadJson())
                .param("traceParent", event.traceParent())
                .param("occurredAt", Timestamp.from(event.occurredAt()))
                .update();
    }
}
