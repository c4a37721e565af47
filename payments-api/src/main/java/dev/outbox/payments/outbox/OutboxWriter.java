package dev.outbox.payments.outbox;

import java.sql.Timestamp;

import dev.outbox.payments.jdbc.Write;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends events to the outbox: the one statement that inserts into outbox_messages, sent now ({@link #append}) or
 * with the transaction's other writes ({@link #insert}). Must join the business
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

    /** Inserts the event now, in the caller's transaction. */
    public void append(OutboxEvent event) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("an outbox event must be written in its business transaction");
        }
        Write insert = insert(event);
        jdbc.sql(insert.sql()).params(insert.params()).update();
    }

    /** The event's insert, for the caller to send with its transaction's other writes ({@code Writes}). */
    public Write insert(OutboxEvent event) {
        return Write.of(INSERT)
                .with("id", event.id())
                .with("aggregateType", event.aggregateType())
                .with("aggregateId", event.aggregateId())
                .with("aggregateVersion", event.aggregateVersion())
                .with("eventType", event.eventType())
                .with("schemaVersion", event.schemaVersion())
                .with("payload", event.payloadJson())
                .with("traceParent", event.traceParent())
                .with("occurredAt", Timestamp.from(event.occurredAt()));
    }
}
