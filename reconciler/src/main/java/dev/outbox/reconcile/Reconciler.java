package dev.outbox.reconcile;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Matches what payments committed (the outbox, the payments' amounts) against what the consumer applied (its ledger
 * and inbox), a window of the outbox's commit order at a time, and asks the topic ({@link Wire}) only about the events
 * not applied, to say where each stopped.
 *
 * <p>A window is a range of {@code ready_xid}, the transaction that made each row ready to publish (its insert, or a
 * requeue: a row made ready again moves to a later window and is judged again there). A window ends at a transaction
 * horizon, the xmin of a snapshot taken at a known time ({@link #sample()}): every transaction below it had ended by
 * then, so the window holds every row it will ever hold, each committed before that time. It is judged once that time
 * is older than the latency objective.
 *
 * <p>Memory is bounded by the chunk size whatever the volume: the window is read {@code chunkSize} rows at a time in
 * the outbox's ready order, and only a capped list of problems is kept. Per chunk: two statements on the payments
 * database, two on the accounting database, and, only for events not applied, one more on the first, two more on
 * the second and a bounded scan of the topic and its dead-letter topic. Read-only throughout: it needs SELECT on a few
 * columns (payments V8, accounting V5) and nothing else.
 */
public final class Reconciler {

    /**
     * @param consumer     the consumer whose ledger is matched ({@code accounting.consumer-name})
     * @param chunkSize    outbox rows read per statement
     * @param maxProblems  problems kept per window for the list (all are counted)
     */
    public record Settings(String consumer, int chunkSize, int maxProblems) {}

    /** A transaction horizon: every transaction below {@code xmin} had ended at {@code at} (the database's clock). */
    public record Sample(Instant at, long xmin) {}

    /** An event the pipeline failed or that waits for an operator, with where it was last seen. */
    public record Problem(
            UUID eventId, UUID paymentId, String eventType, Instant occurredAt, Verdict verdict, String lastSeen) {}

    /** A payment whose ledger total differs from its amount minus its refunds, every event of it applied. */
    public record BalanceMismatch(UUID paymentId, BigDecimal expected, BigDecimal ledger) {}

    /**
     * One judged window: the ready_xid range, the time before which all of it committed, how many events fell in each
     * verdict, and the problems (at most {@code maxProblems}; {@code omitted} more were counted, not listed).
     */
    public record Window(
            long fromXid,
            long toXid,
            Instant committedBefore,
            Map<Verdict, Long> counts,
            List<Problem> problems,
            List<BalanceMismatch> mismatches,
            long omitted) {

        public long count(Verdict verdict) {
            return counts.getOrDefault(verdict, 0L);
        }

        public boolean consistent() {
            return mismatches.isEmpty() && counts.keySet().stream().noneMatch(Verdict::broken);
        }
    }

    /** The events in the window not yet dead-lettered, in ready order (ix_outbox_ready), after a position. */
    private static final String CHUNK = """
            SELECT d.id, d.aggregate_id, d.event_type, d.ready_xid, d.occurred_at, false AS dead_lettered
              FROM outbox_reconcile d
             WHERE d.ready_xid >= :from AND d.ready_xid < :to AND d.dead_lettered_at IS NULL
               AND (d.ready_xid, d.occurred_at, d.id) > (:afterXid, :afterOccurred, :afterId)
             ORDER BY d.ready_xid, d.occurred_at, d.id
             LIMIT :limit
            """;

    /** The dead-lettered events in the window (ix_outbox_dead_lettered), after an id. */
    private static final String DEAD_LETTERED = """
            SELECT m.id, m.aggregate_id, m.event_type, m.ready_xid, m.occurred_at, true AS dead_lettered
              FROM outbox_reconcile m
             WHERE m.dead_lettered_at IS NOT NULL AND m.ready_xid >= :from AND m.ready_xid < :to
               AND m.id > :afterId
             ORDER BY m.id
             LIMIT :limit
            """;

    private static final String SAMPLE = """
            SELECT now() AS at, pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin
            """;

    /** The oldest ready_xid in the outbox: the two partial indexes between them hold every row. */
    private static final String OLDEST = """
            SELECT COALESCE(LEAST((SELECT min(ready_xid) FROM outbox_reconcile WHERE dead_lettered_at IS NULL),
                                  (SELECT min(ready_xid) FROM outbox_reconcile WHERE dead_lettered_at IS NOT NULL)),
                            0)
            """;

    /** Rows not dead-lettered from a transaction on (ix_outbox_ready): the events not judged yet. */
    private static final String NOT_JUDGED = """
            SELECT count(*) FROM outbox_reconcile WHERE ready_xid >= :from AND dead_lettered_at IS NULL
            """;

    private static final String PAYMENTS = """
            SELECT id, amount - refunded_amount AS net, version FROM payments WHERE id = ANY(CAST(:ids AS uuid[]))
            """;

    private static final String EFFECTS = """
            SELECT event_id, count(*) AS effects FROM ledger_entries
             WHERE consumer_name = :consumer AND event_id = ANY(CAST(:ids AS uuid[]))
             GROUP BY event_id
            """;

    /**
     * Each payment's position and ledger total in one statement, so in one snapshot: the consumer moves both in the
     * transaction that applies an event, so a total read here is the total at that position.
     */
    private static final String POSITIONS_AND_TOTALS = """
            SELECT p.payment_id, p.last_version, COALESCE(t.total, 0) AS total
              FROM payment_positions p
              LEFT JOIN (SELECT payment_id, sum(amount) AS total FROM ledger_entries
                          WHERE consumer_name = :consumer AND payment_id = ANY(CAST(:ids AS uuid[]))
                          GROUP BY payment_id) t ON t.payment_id = p.payment_id
             WHERE p.consumer_name = :consumer AND p.payment_id = ANY(CAST(:ids AS uuid[]))
            """;

    private static final String PARKED = """
            SELECT event_id FROM parked_events
             WHERE consumer_name = :consumer AND payment_id = ANY(CAST(:payments AS uuid[]))
               AND event_id = ANY(CAST(:ids AS uuid[]))
            """;

    /** Published as the payments database defines it, asked only about events not applied. */
    private static final String PUBLISHED = """
            SELECT outbox_published_among(CAST(:ids AS uuid[]))
            """;

    private static final String TAKEN = """
            SELECT message_id FROM inbox_messages
             WHERE consumer_name = :consumer AND message_id = ANY(CAST(:ids AS uuid[]))
            """;

    private record Event(
            UUID id, UUID paymentId, String type, long readyXid, Instant occurredAt, boolean deadLettered) {}

    private final JdbcClient payments;
    private final JdbcClient accounting;
    private final Wire wire;
    private final Settings settings;

    /**
     * @param payments   the payments database, as a role that may read the outbox's delivery columns and the payments'
     *                   amounts and versions
     * @param accounting the accounting database, as a role that may read the ledger, inbox, positions and parked events
     */
    public Reconciler(JdbcClient payments, JdbcClient accounting, Wire wire, Settings settings) {
        this.payments = payments;
        this.accounting = accounting;
        this.wire = wire;
        this.settings = settings;
    }

    public Sample sample() {
        return payments.sql(SAMPLE)
                .query((rs, n) -> new Sample(rs.getTimestamp("at").toInstant(), rs.getLong("xmin")))
                .single();
    }

    /** Where a first pass begins: the oldest row the outbox keeps (retention deleted what was before). */
    public long oldest() {
        return payments.sql(OLDEST).query(Long.class).single();
    }

    /** Events from {@code fromXid} on, dead letters aside: younger than the objective, or being judged. */
    public long notJudged(long fromXid) {
        return payments.sql(NOT_JUDGED).param("from", fromXid).query(Long.class).single();
    }

    /** Judges every event made ready by a transaction in [{@code fromXid}, {@code toXid}). */
    public Window reconcile(long fromXid, long toXid, Instant committedBefore) {
        Map<Verdict, Long> counts = new EnumMap<>(Verdict.class);
        List<Problem> problems = new ArrayList<>();
        List<BalanceMismatch> mismatches = new ArrayList<>();
        long[] omitted = new long[1];
        java.util.function.Consumer<List<Event>> judge = chunk -> {
            for (Problem p : judge(chunk, counts)) {
                if (problems.size() < settings.maxProblems()) {
                    problems.add(p);
                } else {
                    omitted[0]++;
                }
            }
            for (BalanceMismatch m : balances(chunk)) {
                if (mismatches.size() < settings.maxProblems()) {
                    mismatches.add(m);
                } else {
                    omitted[0]++;
                }
            }
        };
        Event after = new Event(new UUID(0, 0), null, null, Long.MIN_VALUE, Instant.EPOCH, false);
        for (List<Event> chunk = ready(fromXid, toXid, after); !chunk.isEmpty(); ) {
            judge.accept(chunk);
            chunk = chunk.size() < settings.chunkSize()
                    ? List.of()
                    : ready(fromXid, toXid, chunk.get(chunk.size() - 1));
        }
        UUID afterId = new UUID(0, 0);
        for (List<Event> chunk = deadLettered(fromXid, toXid, afterId); !chunk.isEmpty(); ) {
            judge.accept(chunk);
            chunk = chunk.size() < settings.chunkSize()
                    ? List.of()
                    : deadLettered(fromXid, toXid, chunk.get(chunk.size() - 1).id());
        }
        return new Window(fromXid, toXid, committedBefore, counts, problems, mismatches, omitted[0]);
    }

    /** Judges the listed events again (a problem that an operator or the pipeline has since resolved drops out). */
    public List<Problem> recheck(Collection<Problem> problems) {
        if (problems.isEmpty()) {
            return List.of();
        }
        List<Event> events = payments.sql("""
                        SELECT d.id, d.aggregate_id, d.event_type, d.ready_xid, d.occurred_at,
                               d.dead_lettered_at IS NOT NULL AS dead_lettered
                          FROM outbox_reconcile d
                         WHERE d.id = ANY(CAST(:ids AS uuid[]))
                        """)
                .param("ids", problems.stream().map(Problem::eventId).toArray(UUID[]::new))
                .query(Reconciler::event)
                .list();
        return judge(events, new EnumMap<>(Verdict.class));
    }

    private List<Event> ready(long fromXid, long toXid, Event after) {
        return payments.sql(CHUNK)
                .param("from", fromXid)
                .param("to", toXid)
                .param("afterXid", after.readyXid())
                .param("afterOccurred", Timestamp.from(after.occurredAt()))
                .param("afterId", after.id())
                .param("limit", settings.chunkSize())
                .query(Reconciler::event)
                .list();
    }

    private List<Event> deadLettered(long fromXid, long toXid, UUID afterId) {
        return payments.sql(DEAD_LETTERED)
                .param("from", fromXid)
                .param("to", toXid)
                .param("afterId", afterId)
                .param("limit", settings.chunkSize())
                .query(Reconciler::event)
                .list();
    }

    /** Counts each event's verdict; returns the problems among them. */
    private List<Problem> judge(List<Event> events, Map<Verdict, Long> counts) {
        if (events.isEmpty()) {
            return List.of();
        }
        Map<UUID, Long> effects = new HashMap<>();
        accounting
                .sql(EFFECTS)
                .param("consumer", settings.consumer())
                .param("ids", events.stream().map(Event::id).toArray(UUID[]::new))
                .query((ResultSet rs) -> {
                    effects.put(rs.getObject("event_id", UUID.class), rs.getLong("effects"));
                });
        List<Event> unapplied = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        for (Event e : events) {
            long n = effects.getOrDefault(e.id(), 0L);
            if (n == 1) {
                counts.merge(Verdict.APPLIED, 1L, Long::sum);
            } else if (n > 1) {
                counts.merge(Verdict.APPLIED_MORE_THAN_ONCE, 1L, Long::sum);
                problems.add(problem(e, Verdict.APPLIED_MORE_THAN_ONCE, "ledger: " + n + " entries"));
            } else if (e.deadLettered()) {
                counts.merge(Verdict.DEAD_LETTERED_BY_RELAY, 1L, Long::sum);
                problems.add(problem(e, Verdict.DEAD_LETTERED_BY_RELAY, "outbox: dead-lettered by the relay"));
            } else {
                unapplied.add(e);
            }
        }
        if (unapplied.isEmpty()) {
            return problems;
        }
        UUID[] ids = unapplied.stream().map(Event::id).toArray(UUID[]::new);
        Set<UUID> parked = new HashSet<>(accounting
                .sql(PARKED)
                .param("consumer", settings.consumer())
                .param(
                        "payments",
                        unapplied.stream().map(Event::paymentId).distinct().toArray(UUID[]::new))
                .param("ids", ids)
                .query(UUID.class)
                .list());
        Set<UUID> published = new HashSet<>(
                payments.sql(PUBLISHED).param("ids", ids).query(UUID.class).list());
        Set<UUID> taken = new HashSet<>(accounting
                .sql(TAKEN)
                .param("consumer", settings.consumer())
                .param("ids", ids)
                .query(UUID.class)
                .list());
        List<Wire.Event> looked = unapplied.stream()
                .filter(e -> !parked.contains(e.id()))
                .map(e -> new Wire.Event(e.id(), e.paymentId(), e.occurredAt()))
                .toList();
        Map<UUID, String> deadLetters = looked.isEmpty() ? Map.of() : wire.findDeadLettered(looked);
        Map<UUID, String> onTopic = looked.isEmpty() ? Map.of() : wire.findOnTopic(looked);
        for (Event e : unapplied) {
            String outbox = published.contains(e.id()) ? "outbox: published" : "outbox: not published";
            String inbox = taken.contains(e.id()) ? "; inbox: taken, no ledger entry" : "";
            Verdict verdict;
            String seen;
            if (parked.contains(e.id())) {
                verdict = Verdict.PARKED;
                seen = "consumer: parked behind a gap in the payment's versions";
            } else if (deadLetters.containsKey(e.id())) {
                verdict = Verdict.DEAD_LETTERED_BY_CONSUMER;
                seen = "dead-letter topic: " + deadLetters.get(e.id());
            } else if (onTopic.containsKey(e.id())) {
                verdict = Verdict.ON_TOPIC_NOT_APPLIED;
                seen = "topic: " + onTopic.get(e.id()) + inbox;
            } else {
                verdict = Verdict.MISSING_ON_TOPIC;
                seen = outbox + "; not on the topic" + inbox;
            }
            counts.merge(verdict, 1L, Long::sum);
            problems.add(problem(e, verdict, seen));
        }
        return problems;
    }

    /**
     * The payments of these events whose every event the consumer has applied (its position is the payment's
     * version) and whose ledger total is not their amount minus their refunds. The payments are read first: a
     * refund committed after that moves the payment's version past what was read, so a position that equals it was
     * reached without that refund, and the ledger total read with the position is the one to compare.
     */
    private List<BalanceMismatch> balances(List<Event> events) {
        return balances(events.stream().map(Event::paymentId).distinct().toArray(UUID[]::new));
    }

    /** Checks the listed payments' balances again (a mismatch an operator has since mended drops out). */
    public List<BalanceMismatch> recheckBalances(Collection<BalanceMismatch> mismatches) {
        return mismatches.isEmpty()
                ? List.of()
                : balances(mismatches.stream().map(BalanceMismatch::paymentId).toArray(UUID[]::new));
    }

    private List<BalanceMismatch> balances(UUID[] ids) {
        Map<UUID, BigDecimal> net = new HashMap<>();
        Map<UUID, Long> version = new HashMap<>();
        payments.sql(PAYMENTS).param("ids", ids).query((ResultSet rs) -> {
            UUID id = rs.getObject("id", UUID.class);
            net.put(id, rs.getBigDecimal("net"));
            version.put(id, rs.getLong("version"));
        });
        Map<UUID, Long> position = new HashMap<>();
        Map<UUID, BigDecimal> total = new HashMap<>();
        accounting
                .sql(POSITIONS_AND_TOTALS)
                .param("consumer", settings.consumer())
                .param("ids", ids)
                .query((ResultSet rs) -> {
                    UUID id = rs.getObject("payment_id", UUID.class);
                    position.put(id, rs.getLong("last_version"));
                    total.put(id, rs.getBigDecimal("total"));
                });
        List<BalanceMismatch> mismatches = new ArrayList<>();
        for (Map.Entry<UUID, BigDecimal> payment : net.entrySet()) {
            UUID id = payment.getKey();
            BigDecimal ledger = total.getOrDefault(id, BigDecimal.ZERO);
            if (version.get(id).equals(position.get(id)) && ledger.compareTo(payment.getValue()) != 0) {
                mismatches.add(new BalanceMismatch(id, payment.getValue(), ledger));
            }
        }
        return mismatches;
    }

    private static Problem problem(Event e, Verdict verdict, String lastSeen) {
        return new Problem(e.id(), e.paymentId(), e.type(), e.occurredAt(), verdict, lastSeen);
    }

    private static Event event(ResultSet rs, int n) throws SQLException {
        return new Event(
                rs.getObject("id", UUID.class),
                rs.getObject("aggregate_id", UUID.class),
                rs.getString("event_type"),
                rs.getLong("ready_xid"),
                rs.getTimestamp("occurred_at").toInstant(),
                rs.getBoolean("dead_lettered"));
    }
}
