package dev.outbox.relay.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import dev.outbox.security.ErrorText;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * outbox_messages as the relay sees it, and its one owner in the relay: every change of a row's delivery state
 * (claimed under a lease, marked by its lease owner, retried, dead-lettered, requeued, deleted) is a statement of this
 * class. What published means is the payments migrations' {@code outbox_delivery} view (a lease owner's mark, or the
 * stream's horizon: {@link StreamHorizons}), so pending and published mean the same whichever mode ran. Each method is
 * one short auto-commit statement: a claim commits at once, publishing happens outside any transaction. payments-api
 * owns the table's schema and inserts.
 */
@Component
public final class Outbox {

    /** Per-aggregate order: only the earliest unpublished version of an aggregate is claimable. */
    private static final String EARLIEST_OF_ITS_AGGREGATE = """
            AND NOT EXISTS (
                  SELECT 1 FROM outbox_delivery earlier
                   WHERE earlier.aggregate_type = candidate.aggregate_type
                     AND earlier.aggregate_id = candidate.aggregate_id
                     AND earlier.aggregate_version < candidate.aggregate_version
                     AND NOT earlier.published
                     AND earlier.dead_lettered_at IS NULL)
            """;

    /**
     * Only rows no slot streams: made ready by an update (a retry, a requeue, an operator), or left to the safety net
     * when a slot's horizon began. Read through {@code ix_outbox_not_streamed} (V9), which holds only them.
     */
    private static final String NOT_STREAMED = """
            AND NOT candidate.stream_coverable
            """;

    /**
     * Only stream-coverable rows whose transaction the stored horizon of {@code :slot} sees (or its {@code since}) yet
     * which are not published: another slot's, with two relays on row-filtered slots. Read in the index from the claim
     * floor up to the horizon's {@code xmax} only: the rows ahead of the horizon are the stream's. As in the
     * {@code outbox_delivery} view, scalars computed once per statement decide nearly every row; only a transaction
     * between a snapshot's {@code xmin} and {@code xmax} gets the exact test. Only while another slot's horizon is
     * stored beside this one's: with this slot's alone, a row its horizon sees is published (the view's test is the
     * same), so there is none to find, and the gate, evaluated once per statement, spares the scan. Without it a
     * transaction the stored horizon had seen in progress got the exact test row by row in every claim: 13-19 s per
     * claim, every sweep, while a relay drained a transaction of 1,000,000 rows (2026-12-07, docs/benchmarks.md).
     */
    private static final String PASSED_BY_HORIZON = """
            AND candidate.stream_coverable
            AND EXISTS (SELECT FROM outbox_stream_horizons() other WHERE other.slot_name <> :slot)
            AND candidate.ready_xid < (
                    SELECT GREATEST(pg_snapshot_xmax(h.since)::text::bigint,
                                    pg_snapshot_xmax(COALESCE(h.horizon, h.since))::text::bigint)
                      FROM outbox_stream_horizons() h
                     WHERE h.slot_name = :slot)
            AND (candidate.ready_xid < (
                        SELECT GREATEST(pg_snapshot_xmin(h.since)::text::bigint,
                                        pg_snapshot_xmin(COALESCE(h.horizon, h.since))::text::bigint)
                          FROM outbox_stream_horizons() h
                         WHERE h.slot_name = :slot)
                 OR EXISTS (
                        SELECT FROM outbox_stream_horizons() h
                         WHERE h.slot_name = :slot
                           AND (pg_visible_in_snapshot(candidate.ready_xid::text::xid8, h.since)
                                OR COALESCE(pg_visible_in_snapshot(candidate.ready_xid::text::xid8, h.horizon),
                                            false))))
            """;

    /**
     * The lease protocol: ready rows (unpublished, not dead-lettered, due, unleased or with an expired lease, older
     * than {@code minAge}) are locked with SKIP LOCKED, so concurrent claims are disjoint, and leased to the worker
     * with attempts + 1 in the same statement. Only rows from the claim floor on are read: none before it is pending.
     */
    private static final String CLAIM = """
            WITH candidates AS (
                SELECT candidate.id, candidate.lock_id AS previous_lock
                  FROM outbox_delivery candidate
                 WHERE candidate.ready_xid >= :floor
                   AND NOT candidate.published
                   AND candidate.dead_lettered_at IS NULL
                   AND candidate.next_attempt_at <= now()
                   AND (candidate.locked_until IS NULL OR candidate.locked_until < now())
                   AND candidate.occurred_at <= now() - make_interval(secs => :minAgeSeconds)
                   %s
                 ORDER BY candidate.ready_xid, candidate.occurred_at, candidate.id
                 LIMIT :batchSize
                   FOR UPDATE SKIP LOCKED
            )
            UPDATE outbox_messages AS message
               SET lock_id = :workerId,
                   locked_until = now() + make_interval(secs => :leaseSeconds),
                   attempts = message.attempts + 1
              FROM candidates
             WHERE message.id = candidates.id
            RETURNING message.id, message.aggregate_type, message.aggregate_id, message.aggregate_version,
                      message.event_type, message.schema_version, message.payload::text AS payload,
                      message.trace_parent, message.occurred_at, message.attempts, candidates.previous_lock
            """;

    /**
     * A lease owner marks what Kafka acknowledged: only rows that worker still leases (a lost lease is refused, never
     * overwritten). The ids travel as one array: one statement text whatever the batch size. The CDC stream marks
     * nothing: its horizon covers what it delivered.
     */
    private static final String MARK_PUBLISHED = """
            UPDATE outbox_messages
               SET published_at = now(), lock_id = NULL, locked_until = NULL
             WHERE id = ANY(CAST(:ids AS uuid[])) AND published_at IS NULL AND lock_id = :owner
            """;

    /**
     * Releases the lease with the next attempt time, or dead-letters the row once it used its attempts. The row is
     * made ready again by this transaction, so the claim floor may pass the rows published around it meanwhile, and no
     * stream will ever see this update: a lease owner publishes it.
     */
    private static final String SCHEDULE_RETRY = """
            UPDATE outbox_messages
               SET next_attempt_at = now() + make_interval(secs => :delaySeconds),
                   ready_xid = pg_current_xact_id()::text::bigint,
                   stream_coverable = false,
                   last_error = :error,
                   lock_id = NULL,
                   locked_until = NULL,
                   dead_lettered_at = CASE WHEN attempts >= :maxAttempts THEN now() END
             WHERE id = :id AND lock_id = :owner
            RETURNING dead_lettered_at IS NOT NULL AS dead_lettered
            """;

    /**
     * The rows no stream has covered yet that a new slot may have missed: pending, stream-coverable, visible in this
     * statement's snapshot (committed already). They are left to the safety net: not coverable any more, and ready in
     * this transaction (the outbox_ready_again trigger), from which the claim floor cannot have moved on.
     */
    private static final String LEAVE_TO_SAFETY_NET = """
            UPDATE outbox_messages m
               SET stream_coverable = false
              FROM outbox_delivery d
             WHERE d.id = m.id
               AND d.ready_xid >= :floor
               AND d.dead_lettered_at IS NULL
               AND NOT d.published
               AND d.stream_coverable
            """;

    private static final String DEAD_LETTER = """
            UPDATE outbox_messages
               SET dead_lettered_at = now(), last_error = :error, lock_id = NULL, locked_until = NULL
             WHERE id = :id AND published_at IS NULL
            """;

    /** The dead letters a {@link DeadLetter.Selection} takes: every condition whose parameter is not null. */
    private static final String SELECTED = """
            dead_lettered_at IS NOT NULL
               AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
               AND (CAST(:eventType AS text) IS NULL OR event_type = CAST(:eventType AS text))
               AND (CAST(:reason AS text) IS NULL OR strpos(last_error, CAST(:reason AS text)) > 0)
               AND (CAST(:cause AS text) IS NULL OR outbox_failure_shape(last_error) = CAST(:cause AS text))
               AND (CAST(:after AS timestamptz) IS NULL OR dead_lettered_at >= CAST(:after AS timestamptz))
               AND (CAST(:before AS timestamptz) IS NULL OR dead_lettered_at < CAST(:before AS timestamptz))
            """;

    /** A set of rows as one value: the SHA-256 of their ids in order, the same for the same set only. */
    private static final String DIGEST =
            "encode(sha256(convert_to(COALESCE(string_agg(id::text, ',' ORDER BY id), ''), 'UTF8')), 'hex')";

    private static final String DEAD_LETTERS = """
            SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type, attempts, last_error,
                   occurred_at, dead_lettered_at, CASE WHEN :withPayload THEN payload::text END AS payload
              FROM outbox_messages
             WHERE %s
             ORDER BY dead_lettered_at, id
             LIMIT :limit
            """.formatted(SELECTED);

    /** Failure groups (V7's outbox_failure_shape): same cause, same event type, counted. */
    private static final String GROUPS = """
            SELECT split_part(cause, ':', 1) AS cause_class, cause, event_type, count(*) AS dead_letters,
                   min(dead_lettered_at) AS first_seen, max(dead_lettered_at) AS last_seen
              FROM (SELECT outbox_failure_shape(last_error) AS cause, event_type, dead_lettered_at
                      FROM outbox_messages
                     WHERE dead_lettered_at IS NOT NULL) d
             GROUP BY cause, event_type
             ORDER BY dead_letters DESC, cause, event_type
             LIMIT :limit
            """;

    private static final String MATCHED = """
            SELECT count(*) AS dead_letters, %s AS digest, now() AS as_of
              FROM outbox_messages
             WHERE %s
            """.formatted(DIGEST, SELECTED);

    /**
     * Same id, scheduled now, attempts from zero: the polling relay or the safety net publishes it again. The
     * outbox_ready_again trigger (V5) makes it ready in this transaction, which the claim floor cannot have passed, and
     * out of the stream's reach (no slot streams an update). The selection's rows are locked and digested first; when
     * an expected digest is given (a dry run's) and the set is another, nothing changes. A requeue that runs is audited
     * in the same statement. Rows dead-lettered by a transaction this statement cannot see are not in its set.
     */
    private static final String REQUEUE = """
            WITH chosen AS (
                SELECT id FROM outbox_messages WHERE %s FOR UPDATE
            ), matched AS (
                SELECT count(*) AS dead_letters, %s AS digest, now() AS as_of FROM chosen
            ), requeued AS (
                UPDATE outbox_messages message
                   SET dead_lettered_at = NULL, attempts = 0, next_attempt_at = now(), last_error = NULL,
                       lock_id = NULL, locked_until = NULL
                  FROM chosen, matched
                 WHERE message.id = chosen.id
                   AND (CAST(:expect AS text) IS NULL OR matched.digest = CAST(:expect AS text))
                RETURNING message.id
            ), audit AS (
                INSERT INTO outbox_requeues (requested_by, selection, requeued, digest)
                SELECT CAST(:by AS text), CAST(:selection AS text), (SELECT count(*) FROM requeued), matched.digest
                  FROM matched
                 WHERE CAST(:expect AS text) IS NULL OR matched.digest = CAST(:expect AS text)
            )
            SELECT matched.dead_letters, matched.digest, matched.as_of, (SELECT count(*) FROM requeued) AS requeued
              FROM matched
            """.formatted(SELECTED, DIGEST);

    private static final String AUDITS = """
            SELECT id, requested_by, requested_at, selection, requeued, digest
              FROM outbox_requeues
             ORDER BY id DESC
             LIMIT :limit
            """;

    /**
     * Old published rows, a bounded batch per statement, in the order they became ready (ix_outbox_ready: the oldest
     * first); pending and dead-lettered rows never.
     */
    private static final String DELETE_PUBLISHED = """
            DELETE FROM outbox_messages
             WHERE id IN (SELECT id FROM outbox_delivery
                           WHERE ready_xid IS NOT NULL AND dead_lettered_at IS NULL AND published
                             AND occurred_at < now() - make_interval(secs => :ageSeconds)
                           ORDER BY ready_xid
                           LIMIT :batchSize)
            """;

    private static final String ALREADY_HANDLED = """
            SELECT id FROM outbox_delivery
             WHERE id = ANY(CAST(:ids AS uuid[])) AND (published OR dead_lettered_at IS NOT NULL)
            """;

    private static final String BACKLOG = """
            SELECT count(*) FILTER (WHERE NOT published) AS pending,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(occurred_at) FILTER (WHERE NOT published)), 0)
                       ::bigint AS oldest_seconds,
                   (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL) AS dead_lettered,
                   count(*) AS past_floor
              FROM outbox_delivery
             WHERE ready_xid >= :floor AND dead_lettered_at IS NULL
            """;

    /**
     * The stored claim floor. One beyond every transaction this cluster has begun was copied from another cluster (a
     * logical copy or a restore carries the table, not the transaction counter): the relay starts again from 0.
     */
    private static final String FLOOR = """
            SELECT CASE WHEN ready_xid > pg_snapshot_xmax(pg_current_snapshot())::text::bigint THEN 0
                        ELSE ready_xid END
              FROM outbox_claim_floor
            """;

    /**
     * Raises the claim floor from {@code :base} (a value it had, bound so that the planner sees it), never lowers it
     * but to leave another cluster's value, to the least of: the oldest transaction still running (it may yet commit
     * a ready row), the oldest pending row from the base on, and one past the newest row (so an idle outbox does not
     * write it again and again). A value computed in any snapshot stays a lower bound of every row pending from then
     * on: a row pending then is counted, a row published stays published (a lease owner's mark is never undone but by
     * an update that makes the row ready again, and horizons only move forward), and any row made ready later is made
     * so by a transaction at or beyond that snapshot's xmin. So concurrent advances need no lock of their own. The
     * row is written, and the statement commits durably, only when the floor moves. The newest row is looked for from
     * the base on: a range on ready_xid is what lets the planner read it from ix_outbox_ready (its predicate names
     * ready_xid IS NOT NULL, which PostgreSQL no longer writes into a query on a NOT NULL column) instead of scanning
     * the whole outbox.
     */
    private static final String ADVANCE_FLOOR = """
            WITH computed AS (
                SELECT LEAST(pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                             (SELECT min(message.ready_xid) FROM outbox_delivery message
                               WHERE message.ready_xid >= :base
                                 AND NOT message.published AND message.dead_lettered_at IS NULL),
                             COALESCE((SELECT max(message.ready_xid) + 1 FROM outbox_messages message
                                        WHERE message.ready_xid >= :base AND message.dead_lettered_at IS NULL),
                                      :base)) AS raised
            ), updated AS (
                UPDATE outbox_claim_floor
                   SET ready_xid = computed.raised
                  FROM computed
                 WHERE computed.raised > outbox_claim_floor.ready_xid
                    OR outbox_claim_floor.ready_xid > pg_snapshot_xmax(pg_current_snapshot())::text::bigint
                RETURNING outbox_claim_floor.ready_xid
            )
            SELECT COALESCE((SELECT ready_xid FROM updated), :base)
            """;

    /**
     * What waits: rows neither published nor dead-lettered, the age of the oldest, the dead letters, and how many
     * rows a claim reads from the claim floor on (published ones included: what holds the floor back shows here).
     */
    public record Backlog(long pending, long oldestSeconds, long deadLettered, long pastFloor) {}

    private final JdbcClient jdbc;
    private final String claimInAnyOrder = CLAIM.formatted("");
    private final String claimEarliestPerAggregate = CLAIM.formatted(EARLIEST_OF_ITS_AGGREGATE);
    private final String claimNotStreamed = CLAIM.formatted(NOT_STREAMED);
    private final String claimPassedByHorizon = CLAIM.formatted(PASSED_BY_HORIZON);

    public Outbox(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Claims up to {@code batchSize} ready rows for {@code workerId}, re-sorted by occurred_at, id.
     *
     * @param minAge            only rows at least this old (the safety net's grace period; zero for polling)
     * @param perAggregateOrder only the earliest unpublished version of each aggregate
     */
    public List<OutboxRow> claim(
            UUID workerId, int batchSize, Duration lease, Duration minAge, boolean perAggregateOrder) {
        String sql = perAggregateOrder ? claimEarliestPerAggregate : claimInAnyOrder;
        return claim(sql, workerId, batchSize, lease, minAge, null);
    }

    /**
     * Claims, as {@link #claim} does, only rows a stream delivering {@code slot} will not deliver: those no slot
     * streams, and those its stored horizon has passed without publishing them. What the safety net takes while its
     * own stream delivers: the rows ahead of the stream's horizon are the stream's, however far behind it is.
     */
    public List<OutboxRow> claimBehindHorizon(
            UUID workerId, int batchSize, Duration lease, Duration minAge, String slot) {
        List<OutboxRow> claimed = claim(claimNotStreamed, workerId, batchSize, lease, minAge, null);
        if (claimed.size() < batchSize) {
            claimed.addAll(claim(claimPassedByHorizon, workerId, batchSize - claimed.size(), lease, minAge, slot));
            claimed.sort(Comparator.comparing(OutboxRow::occurredAt).thenComparing(OutboxRow::id));
        }
        return claimed;
    }

    private List<OutboxRow> claim(
            String sql, UUID workerId, int batchSize, Duration lease, Duration minAge, String slot) {
        long floor = floor();
        JdbcClient.StatementSpec statement = jdbc.sql(sql);
        if (slot != null) {
            statement = statement.param("slot", slot);
        }
        List<OutboxRow> claimed = new ArrayList<>(statement
                .param("floor", floor)
                .param("minAgeSeconds", minAge.toMillis() / 1000.0)
                .param("batchSize", batchSize)
                .param("workerId", workerId)
                .param("leaseSeconds", lease.toMillis() / 1000.0)
                .query(Outbox::row)
                .list());
        claimed.sort(Comparator.comparing(OutboxRow::occurredAt).thenComparing(OutboxRow::id));
        return claimed;
    }

    /**
     * @param owner the worker that must still hold the rows' lease
     * @return how many rows this marked
     */
    public int markPublished(Collection<UUID> ids, UUID owner) {
        return ids.isEmpty()
                ? 0
                : jdbc.sql(MARK_PUBLISHED)
                        .param("ids", ids.toArray(UUID[]::new))
                        .param("owner", owner)
                        .update();
    }

    /** @return empty if the lease passed to another worker (nothing changed), else whether it is now dead-lettered */
    public Optional<Boolean> scheduleRetry(UUID id, UUID owner, Duration delay, String error, int maxAttempts) {
        return jdbc.sql(SCHEDULE_RETRY)
                .param("delaySeconds", delay.toMillis() / 1000.0)
                .param("error", error)
                .param("maxAttempts", maxAttempts)
                .param("id", id)
                .param("owner", owner)
                .query(Boolean.class)
                .optional();
    }

    /** The ids among {@code ids} whose rows are published or dead-lettered already. */
    public Set<UUID> alreadyHandled(Collection<UUID> ids) {
        return new HashSet<>(jdbc.sql(ALREADY_HANDLED)
                .param("ids", ids.toArray(UUID[]::new))
                .query(UUID.class)
                .list());
    }

    /**
     * Leaves to the safety net what a new slot may have missed (see {@code StreamHorizons}). Must run in the REPEATABLE
     * READ transaction that begins the slot's horizon, so that the horizon starts from the snapshot these rows were
     * chosen in.
     *
     * @return how many rows the safety net will publish
     */
    public int leaveToSafetyNet() {
        return jdbc.sql(LEAVE_TO_SAFETY_NET).param("floor", floor()).update();
    }

    /** Parks a row the broker will never accept. The reason is sanitized; the payload never goes into it. */
    public void deadLetter(UUID id, Throwable cause) {
        jdbc.sql(DEAD_LETTER)
                .param("id", id)
                .param("error", ErrorText.sanitize(cause))
                .update();
    }

    public List<DeadLetter> deadLetters(DeadLetter.Selection selection, boolean withPayload, int limit) {
        return selected(jdbc.sql(DEAD_LETTERS), selection)
                .param("withPayload", withPayload)
                .param("limit", limit)
                .query((rs, n) -> new DeadLetter(
                        rs.getObject("id", UUID.class),
                        rs.getString("aggregate_type"),
                        rs.getObject("aggregate_id", UUID.class),
                        rs.getLong("aggregate_version"),
                        rs.getString("event_type"),
                        rs.getInt("attempts"),
                        rs.getString("last_error"),
                        rs.getTimestamp("occurred_at").toInstant(),
                        rs.getTimestamp("dead_lettered_at").toInstant(),
                        withPayload ? rs.getString("payload") : DeadLetter.REDACTED))
                .list();
    }

    /** Failure groups, the largest first. */
    public List<DeadLetter.Group> deadLetterGroups(int limit) {
        return jdbc.sql(GROUPS)
                .param("limit", limit)
                .query((rs, n) -> new DeadLetter.Group(
                        rs.getString("cause_class"),
                        rs.getString("cause"),
                        rs.getString("event_type"),
                        rs.getLong("dead_letters"),
                        rs.getTimestamp("first_seen").toInstant(),
                        rs.getTimestamp("last_seen").toInstant()))
                .list();
    }

    /** The set a requeue of {@code selection} would take now: a dry run, which changes nothing. */
    public DeadLetter.Matched matched(DeadLetter.Selection selection) {
        return selected(jdbc.sql(MATCHED), selection).query(Outbox::matched).single();
    }

    /**
     * Requeues the selection's dead letters, all or none, and audits it.
     *
     * @param expectedDigest a dry run's {@link DeadLetter.Matched#digest()}: nothing is requeued unless the selection
     *                       takes exactly that set; {@code null} to take whatever it takes
     * @param by             who asked, for the audit
     */
    public DeadLetter.Requeue requeue(DeadLetter.Selection selection, String expectedDigest, String by) {
        return selected(jdbc.sql(REQUEUE), selection)
                .param("expect", expectedDigest)
                .param("by", by)
                .param("selection", selection.toString())
                .query((rs, n) -> new DeadLetter.Requeue(matched(rs, n), rs.getInt("requeued")))
                .single();
    }

    /** The latest audited requeues, newest first. */
    public List<DeadLetter.Audit> requeues(int limit) {
        return jdbc.sql(AUDITS)
                .param("limit", limit)
                .query((rs, n) -> new DeadLetter.Audit(
                        rs.getLong("id"),
                        rs.getString("requested_by"),
                        rs.getTimestamp("requested_at").toInstant(),
                        rs.getString("selection"),
                        rs.getInt("requeued"),
                        rs.getString("digest")))
                .list();
    }

    private static JdbcClient.StatementSpec selected(JdbcClient.StatementSpec sql, DeadLetter.Selection selection) {
        return sql.param("id", selection.id())
                .param("eventType", selection.eventType())
                .param("reason", selection.reason())
                .param("cause", selection.cause())
                .param("after", timestamp(selection.deadLetteredAfter()))
                .param("before", timestamp(selection.deadLetteredBefore()));
    }

    private static DeadLetter.Matched matched(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        return new DeadLetter.Matched(
                rs.getLong("dead_letters"),
                rs.getString("digest"),
                rs.getTimestamp("as_of").toInstant());
    }

    /** @return rows deleted by this one statement (at most {@code batchSize}) */
    public int deletePublishedOlderThan(Duration age, int batchSize) {
        return jdbc.sql(DELETE_PUBLISHED)
                .param("ageSeconds", (double) age.toSeconds())
                .param("batchSize", batchSize)
                .update();
    }

    /** Raises the claim floor first ({@link #advanceFloor()}), then counts from it. */
    public Backlog backlog() {
        return jdbc.sql(BACKLOG)
                .param("floor", advanceFloor())
                .query((rs, n) -> new Backlog(
                        rs.getLong("pending"),
                        rs.getLong("oldest_seconds"),
                        rs.getLong("dead_lettered"),
                        rs.getLong("past_floor")))
                .single();
    }

    /**
     * The claim floor as stored: claims read from it and leave raising it to {@link #advanceFloor()}, which every
     * relay runs every {@code relay.monitor-interval}. A floor a few seconds old only costs a claim the rows published since.
     */
    private long floor() {
        return jdbc.sql(FLOOR).query(Long.class).single();
    }

    /**
     * Raises the claim floor: every relay runs this every {@code relay.monitor-interval}, with a count or without.
     *
     * @return the raised claim floor: every row pending now or later has a ready_xid at or beyond it (V4, V5)
     */
    public long advanceFloor() {
        return jdbc.sql(ADVANCE_FLOOR).param("base", floor()).query(Long.class).single();
    }

    private static Timestamp timestamp(java.time.Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }

    private static OutboxRow row(ResultSet rs, int n) throws SQLException {
        return new OutboxRow(
                rs.getObject("id", UUID.class),
                rs.getString("aggregate_type"),
                rs.getObject("aggregate_id", UUID.class),
                rs.getLong("aggregate_version"),
                rs.getString("event_type"),
                rs.getInt("schema_version"),
                rs.getString("payload"),
                rs.getString("trace_parent"),
                rs.getTimestamp("occurred_at").toInstant(),
                rs.getInt("attempts"),
                rs.getObject("previous_lock", UUID.class));
    }
}
