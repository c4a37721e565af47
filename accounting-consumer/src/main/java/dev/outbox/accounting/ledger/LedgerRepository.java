package dev.outbox.accounting.ledger;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.outbox.accounting.events.PaymentEvent;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** Ledger entries, per-payment positions and parked events. Writes run inside the caller's transaction. */
@Component
final class LedgerRepository {

    /**
     * Takes the payment's transaction-scoped lock, which serializes every transaction that touches one payment (so
     * a parked successor is never missed), and reads its last applied version, in one round trip.
     */
    private static final String LOCK_AND_READ_VERSION = """
            SELECT COALESCE((SELECT last_version FROM payment_positions
                              WHERE consumer_name = :consumer AND payment_id = :paymentId), 0)
              FROM (SELECT pg_advisory_xact_lock(hashtext(:consumer), hashtext(CAST(:paymentId AS text)))) locked
            """;

    /** The ledger entry and the payment's new position, in one round trip. */
    private static final String APPLY = """
            WITH entry AS (
                INSERT INTO ledger_entries (consumer_name, event_id, payment_id, aggregate_version, entry_type,
                                            amount, currency, trace_id, created_at)
                VALUES (:consumer, :eventId, :paymentId, :version, :type, :amount, :currency, :traceId, :now)
            )
            INSERT INTO payment_positions (consumer_name, payment_id, last_version, currency, updated_at)
            VALUES (:consumer, :paymentId, :version, :currency, :now)
            ON CONFLICT (consumer_name, payment_id)
            DO UPDATE SET last_version = EXCLUDED.last_version, updated_at = EXCLUDED.updated_at
            """;

    private static final String CURRENCY = """
            SELECT currency FROM payment_positions WHERE consumer_name = :consumer AND payment_id = :paymentId
            """;

    private static final String PARK = """
            INSERT INTO parked_events (consumer_name, payment_id, aggregate_version, event_id, event_type,
                                       schema_version, payload, trace_parent, parked_at)
            VALUES (:consumer, :paymentId, :version, :eventId, :type, :schema, CAST(:payload AS jsonb),
                    :traceparent, :now)
            ON CONFLICT DO NOTHING
            """;

    private static final String UNPARK = """
            DELETE FROM parked_events
             WHERE consumer_name = :consumer AND payment_id = :paymentId AND aggregate_version = :version
            RETURNING event_id, event_type, schema_version, payload::text AS payload, trace_parent
            """;

    private static final String ENTRIES = """
            SELECT event_id, aggregate_version, entry_type, amount, currency, trace_id, created_at
              FROM ledger_entries
             WHERE consumer_name = :consumer AND payment_id = :paymentId
             ORDER BY aggregate_version
            """;

    private final JdbcClient jdbc;

    LedgerRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Locks the payment for this transaction and returns its last applied version (0 if none). */
    long lockAndReadVersion(String consumer, UUID paymentId) {
        return jdbc.sql(LOCK_AND_READ_VERSION).param("consumer", consumer).param("paymentId", paymentId)
                .query(Long.class).single();
    }

    Optional<String> currency(String consumer, UUID paymentId) {
        return jdbc.sql(CURRENCY).param("consumer", consumer).param("paymentId", paymentId)
                .query(String.class).optional();
    }

    void apply(String consumer, PaymentEvent event, String traceId) {
        jdbc.sql(APPLY)
                .param("consumer", consumer)
                .param("eventId", event.id())
                .param("paymentId", event.paymentId())
                .param("version", event.version())
                .param("type", event.type())
                .param("amount", event.ledgerAmount())
                .param("currency", event.currency())
                .param("traceId", traceId)
                .param("now", Timestamp.from(Instant.now()))
                .update();
    }

    void park(String consumer, PaymentEvent event) {
        jdbc.sql(PARK)
                .param("consumer", consumer)
                .param("paymentId", event.paymentId())
                .param("version", event.version())
                .param("eventId", event.id())
                .param("type", event.type())
                .param("schema", event.schemaVersion())
                .param("payload", event.payloadJson())
                .param("traceparent", event.traceparent())
                .param("now", Timestamp.from(Instant.now()))
                .update();
    }

    /** Removes and returns the parked event of that version, if one waits. */
    Optional<Parked> unpark(String consumer, UUID paymentId, long version) {
        return jdbc.sql(UNPARK)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .param("version", version)
                .query((rs, n) -> new Parked(rs.getObject("event_id", UUID.class), rs.getString("event_type"),
                        rs.getInt("schema_version"), rs.getString("payload"), rs.getString("trace_parent")))
                .optional();
    }

    List<Entry> entries(String consumer, UUID paymentId) {
        return jdbc.sql(ENTRIES).param("consumer", consumer).param("paymentId", paymentId)
                .query((rs, n) -> new Entry(rs.getObject("event_id", UUID.class), rs.getLong("aggregate_version"),
                        rs.getString("entry_type"), rs.getBigDecimal("amount"), rs.getString("currency"),
                        rs.getString("trace_id"), rs.getTimestamp("created_at").toInstant()))
                .list();
    }

    record Parked(UUID eventId, String type, int schemaVersion, String payloadJson, String traceparent) {
    }

    record Entry(UUID eventId, long version, String type, BigDecimal amount, String currency, String traceId,
            Instant createdAt) {
    }
}
