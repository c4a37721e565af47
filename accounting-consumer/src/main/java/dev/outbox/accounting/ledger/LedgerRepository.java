package dev.outbox.accounting.ledger;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The ledger's tables and their one owner: ledger_entries, payment_positions and parked_events. Writes run inside
 * the caller's transaction, the one that also takes the events' inbox markers (or, for an operator's skip of a
 * gap, the one that writes its audit row).
 */
@Component
final class LedgerRepository {

    /**
     * Takes the payments' transaction-scoped locks, which serialize every transaction that touches one payment (so
     * a parked successor is never missed), in the order given. The positions must be read by a later statement:
     * under READ COMMITTED a statement reads with the snapshot it took before it waited for a lock.
     */
    private static final String LOCK = """
            SELECT count(pg_advisory_xact_lock(hashtext(:consumer), hashtext(CAST(p.payment_id AS text))))
              FROM unnest(CAST(:paymentIds AS uuid[])) WITH ORDINALITY AS p(payment_id, n)
            """;

    /** Last applied version, currency, and whether events wait parked, for each payment given. */
    private static final String POSITIONS = """
            SELECT p.payment_id, COALESCE(pos.last_version, 0) AS last_version, pos.currency,
                   EXISTS (SELECT 1 FROM parked_events pe
                            WHERE pe.consumer_name = :consumer AND pe.payment_id = p.payment_id) AS parked
              FROM unnest(CAST(:paymentIds AS uuid[])) AS p(payment_id)
              LEFT JOIN payment_positions pos ON pos.consumer_name = :consumer AND pos.payment_id = p.payment_id
            """;

    /** A batch's ledger entries and the new position of each payment it touched, in one round trip. */
    private static final String APPLY_ALL = """
            WITH entries AS (
                INSERT INTO ledger_entries (consumer_name, event_id, payment_id, aggregate_version, entry_type,
                                            amount, currency, trace_id, created_at)
                SELECT :consumer, e.event_id, e.payment_id, e.version, e.entry_type, e.amount, e.currency,
                       e.trace_id, :now
                  FROM unnest(CAST(:eventIds AS uuid[]), CAST(:paymentIds AS uuid[]), CAST(:versions AS bigint[]),
                              CAST(:types AS text[]), CAST(:amounts AS numeric[]), CAST(:currencies AS text[]),
                              CAST(:traceIds AS text[]))
                       AS e(event_id, payment_id, version, entry_type, amount, currency, trace_id)
            )
            INSERT INTO payment_positions (consumer_name, payment_id, last_version, currency, updated_at)
            SELECT :consumer, p.payment_id, p.version, p.currency, :now
              FROM unnest(CAST(:positionIds AS uuid[]), CAST(:positionVersions AS bigint[]),
                          CAST(:positionCurrencies AS text[])) AS p(payment_id, version, currency)
            ON CONFLICT (consumer_name, payment_id)
            DO UPDATE SET last_version = EXCLUDED.last_version, updated_at = EXCLUDED.updated_at
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
                                       schema_version, payload, trace_parent, occurred_at, parked_at)
            VALUES (:consumer, :paymentId, :version, :eventId, :type, :schema, CAST(:payload AS jsonb),
                    :traceparent, :occurredAt, :now)
            ON CONFLICT DO NOTHING
            """;

    private static final String UNPARK = """
            DELETE FROM parked_events
             WHERE consumer_name = :consumer AND payment_id = :paymentId AND aggregate_version = :version
            RETURNING event_id, event_type, schema_version, payload::text AS payload, trace_parent, occurred_at
            """;

    /** The first parked event of a payment, left in place. */
    private static final String FIRST_PARKED = """
            SELECT aggregate_version, event_id, event_type, schema_version, payload::text AS payload, trace_parent,
                   occurred_at
              FROM parked_events
             WHERE consumer_name = :consumer AND payment_id = :paymentId
             ORDER BY aggregate_version
             LIMIT 1
            """;

    /** Parked events with their payment's position, the payments whose oldest event waits longest first. */
    private static final String PARKED = """
            SELECT pe.payment_id, COALESCE(pos.last_version, 0) AS last_version, pe.aggregate_version, pe.event_id,
                   pe.event_type, pe.parked_at,
                   GREATEST(EXTRACT(EPOCH FROM now() - pe.parked_at), 0)::bigint AS age_seconds
              FROM parked_events pe
              LEFT JOIN payment_positions pos
                ON pos.consumer_name = pe.consumer_name AND pos.payment_id = pe.payment_id
             WHERE pe.consumer_name = :consumer
               AND (CAST(:paymentId AS uuid) IS NULL OR pe.payment_id = CAST(:paymentId AS uuid))
             ORDER BY min(pe.parked_at) OVER (PARTITION BY pe.payment_id), pe.payment_id, pe.aggregate_version
             LIMIT :limit
            """;

    /** Moves a payment's position to {@code version} without a ledger entry (an operator skips a gap). */
    private static final String SKIP_TO = """
            INSERT INTO payment_positions (consumer_name, payment_id, last_version, currency, updated_at)
            VALUES (:consumer, :paymentId, :version, :currency, :now)
            ON CONFLICT (consumer_name, payment_id)
            DO UPDATE SET last_version = EXCLUDED.last_version, updated_at = EXCLUDED.updated_at
            """;

    private static final String PARKED_SUMMARY = """
            SELECT count(*) AS parked,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(parked_at)), 0)::bigint AS oldest_seconds
              FROM parked_events
             WHERE consumer_name = :consumer
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

    /**
     * Locks the payments for this transaction, in a fixed order (sorted ids), so that two transactions locking
     * overlapping sets cannot deadlock.
     */
    void lock(String consumer, Collection<UUID> paymentIds) {
        UUID[] sorted = paymentIds.stream().distinct().sorted().toArray(UUID[]::new);
        jdbc.sql(LOCK)
                .param("consumer", consumer)
                .param("paymentIds", sorted)
                .query(Long.class)
                .single();
    }

    /** Positions of the payments (call after {@link #lock}); a payment never seen has version 0, no currency. */
    Map<UUID, Position> positions(String consumer, Collection<UUID> paymentIds) {
        Map<UUID, Position> positions = new HashMap<>();
        jdbc.sql(POSITIONS)
                .param("consumer", consumer)
                .param("paymentIds", paymentIds.toArray(UUID[]::new))
                .query((rs, n) -> positions.put(
                        rs.getObject("payment_id", UUID.class),
                        new Position(rs.getLong("last_version"), rs.getString("currency"), rs.getBoolean("parked"))))
                .list();
        return positions;
    }

    /** Writes the entries (in order, each the next version of its payment) and each payment's last position. */
    void applyAll(String consumer, List<PaymentEvent> events, List<String> traceIds) {
        int n = events.size();
        UUID[] eventIds = new UUID[n];
        UUID[] paymentIds = new UUID[n];
        long[] versions = new long[n];
        String[] types = new String[n];
        String[] amounts = new String[n];
        String[] currencies = new String[n];
        String[] traces = new String[n];
        Map<UUID, PaymentEvent> last = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            PaymentEvent e = events.get(i);
            eventIds[i] = e.id();
            paymentIds[i] = e.paymentId();
            versions[i] = e.version();
            types[i] = e.type();
            amounts[i] = e.ledgerAmount().toPlainString();
            currencies[i] = e.currency();
            traces[i] = traceIds.get(i);
            last.put(e.paymentId(), e);
        }
        jdbc.sql(APPLY_ALL)
                .param("consumer", consumer)
                .param("now", Timestamp.from(Instant.now()))
                .param("eventIds", eventIds)
                .param("paymentIds", paymentIds)
                .param("versions", versions)
                .param("types", types)
                .param("amounts", amounts)
                .param("currencies", currencies)
                .param("traceIds", traces)
                .param("positionIds", last.keySet().toArray(UUID[]::new))
                .param(
                        "positionVersions",
                        last.values().stream().mapToLong(PaymentEvent::version).toArray())
                .param(
                        "positionCurrencies",
                        last.values().stream().map(PaymentEvent::currency).toArray(String[]::new))
                .update();
    }

    Optional<String> currency(String consumer, UUID paymentId) {
        return jdbc.sql(CURRENCY)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .query(String.class)
                .optional();
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
                .param("schema", event.envelope().schemaVersion())
                .param("payload", event.payloadJson())
                .param("traceparent", event.envelope().traceparent())
                .param("occurredAt", Timestamp.from(event.envelope().occurredAt()))
                .param("now", Timestamp.from(Instant.now()))
                .update();
    }

    /** The payment's parked event of the lowest version, as the record it arrived as; call after {@link #lock}. */
    Optional<EventRecord> firstParked(String consumer, UUID paymentId) {
        return jdbc.sql(FIRST_PARKED)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .query((rs, n) -> parkedRecord(paymentId, rs.getLong("aggregate_version"), rs))
                .optional();
    }

    /** Parked events, of one payment or all ({@code paymentId} null), at most {@code limit}. */
    List<Parked> parked(String consumer, UUID paymentId, int limit) {
        return jdbc.sql(PARKED)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .param("limit", limit)
                .query((rs, n) -> new Parked(
                        rs.getObject("payment_id", UUID.class),
                        rs.getLong("last_version"),
                        rs.getLong("aggregate_version"),
                        rs.getObject("event_id", UUID.class),
                        rs.getString("event_type"),
                        rs.getTimestamp("parked_at").toInstant(),
                        rs.getLong("age_seconds")))
                .list();
    }

    /**
     * Sets the payment's position to {@code version}, writing no ledger entry; {@code currency} is used only when
     * the payment has no position yet. Must run in a transaction holding the payment's lock.
     */
    void skipTo(String consumer, UUID paymentId, long version, String currency) {
        jdbc.sql(SKIP_TO)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .param("version", version)
                .param("currency", currency)
                .param("now", Timestamp.from(Instant.now()))
                .update();
    }

    /** Removes and returns the parked event of that version, as the record it arrived as, if one waits. */
    Optional<EventRecord> unpark(String consumer, UUID paymentId, long version) {
        return jdbc.sql(UNPARK)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .param("version", version)
                .query((rs, n) -> parkedRecord(paymentId, version, rs))
                .optional();
    }

    private static EventRecord parkedRecord(UUID paymentId, long version, java.sql.ResultSet rs)
            throws java.sql.SQLException {
        return new EventRecord(
                "",
                paymentId.toString(),
                new EventEnvelope(
                        rs.getObject("event_id", UUID.class),
                        rs.getString("event_type"),
                        rs.getInt("schema_version"),
                        version,
                        rs.getTimestamp("occurred_at").toInstant(),
                        rs.getString("trace_parent")),
                rs.getString("payload").getBytes(StandardCharsets.UTF_8));
    }

    List<Entry> entries(String consumer, UUID paymentId) {
        return jdbc.sql(ENTRIES)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .query((rs, n) -> new Entry(
                        rs.getObject("event_id", UUID.class),
                        rs.getLong("aggregate_version"),
                        rs.getString("entry_type"),
                        rs.getBigDecimal("amount"),
                        rs.getString("currency"),
                        rs.getString("trace_id"),
                        rs.getTimestamp("created_at").toInstant()))
                .list();
    }

    /** How many events this consumer holds back behind a version gap, and how long the oldest has waited. */
    ParkedSummary parkedSummary(String consumer) {
        return jdbc.sql(PARKED_SUMMARY)
                .param("consumer", consumer)
                .query((rs, n) -> new ParkedSummary(rs.getLong("parked"), rs.getLong("oldest_seconds")))
                .single();
    }

    record ParkedSummary(long count, long oldestSeconds) {}

    /** A parked event, with its payment's last applied version (0 when none was). */
    record Parked(
            UUID paymentId,
            long lastVersion,
            long version,
            UUID eventId,
            String type,
            Instant parkedAt,
            long ageSeconds) {}

    /** @param parked whether events of this payment wait in parked_events */
    record Position(long version, String currency, boolean parked) {}

    record Entry(
            UUID eventId,
            long version,
            String type,
            BigDecimal amount,
            String currency,
            String traceId,
            Instant createdAt) {}
}
