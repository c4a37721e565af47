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
 * (claimed under a lease, published, retried, dead-lettered, requeued, deleted) is a statement of this class, so
 * pending and published mean the same whichever mode ran. Each method is one short auto-commit statement: a claim
 * commits at once, publishing happens outside any transaction. payments-api owns the table's schema and inserts.
 */
@Component
public final class Outbox {

    /** Per-aggregate order: only the earliest unpublished version of an aggregate is claimable. */
    private static final String EARLIEST_OF_ITS_AGGREGATE = """
            AND NOT EXISTS (
                  SELECT 1 FROM outbox_messages earlier
                   WHERE earlier.aggregate_type = candidate.aggregate_type
                     AND earlier.aggregate_id = candidate.aggregate_id
                     AND earlier.aggregate_version < candidate.aggregate_version
                     AND earlier.published_at IS NULL
                     AND earlier.dead_lettered_at IS NULL)
            """;

    /**
     * The lease protocol: ready rows (unpublished, not dead-lettered, due, unleased or with an expired lease, older
     * than {@code minAge}) are locked with SKIP LOCKED, so concurrent claims are disjoint, and leased to the worker
     * with attempts + 1 in the same statement. Only rows from the watermark on are read: none before it is ready.
     */
    private static final String CLAIM = """
            WITH candidates AS (
                SELECT candidate.id, candidate.lock_id AS previous_lock
                  FROM outbox_messages candidate
                 WHERE candidate.ready_xid >= :watermark
                   AND candidate.published_at IS NULL
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
     * Marks what Kafka acknowledged. With an owner, only rows that worker still leases (a lost lease is refused,
     * never overwritten); without one (cdc), any unpublished row. Rows already marked are left alone. The ids
     * travel as one array: one statement text whatever the batch size. The stream's marks change no indexed column
     * (HOT updates, V4); a lease owner's marks clear ready_xid, which takes the row out of ix_outbox_pending, so the
     * next claims do not read what the polling relay or the safety net just published.
     */
    private static final String MARK_PUBLISHED = """
            UPDATE outbox_messages
               SET published_at = now(), lock_id = NULL, locked_until = NULL,
                   ready_xid = CASE WHEN CAST(:owner AS uuid) IS NULL THEN ready_xid END
             WHERE id = ANY(CAST(:ids AS uuid[])) AND published_at IS NULL
               AND (CAST(:owner AS uuid) IS NULL OR lock_id = CAST(:owner AS uuid))
            """;

    /**
     * Releases the lease with the next attempt time, or dead-letters the row once it used its attempts. The row is
     * made ready again by this transaction, so the watermark may pass the rows published around it meanwhile.
     */
    private static final String SCHEDULE_RETRY = """
            UPDATE outbox_messages
               SET next_attempt_at = now() + make_interval(secs => :delaySeconds),
                   ready_xid = pg_current_xact_id()::text::bigint,
                   last_error = :error,
                   lock_id = NULL,
                   locked_until = NULL,
                   dead_lettered_at = CASE WHEN attempts >= :maxAttempts THEN now() END
             WHERE id = :id AND lock_id = :owner
            RETURNING dead_lettered_at IS NOT NULL AS dead_lettered
            """;

    private static final String DEAD_LETTER = """
            UPDATE outbox_messages
               SET dead_lettered_at = now(), last_error = :error, lock_id = NULL, locked_until = NULL
             WHERE id = :id AND published_at IS NULL
            """;

    private static final String DEAD_LETTERS = """
            SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type, attempts, last_error,
                   occurred_at, dead_lettered_at, CASE WHEN :withPayload THEN payload::text END AS payload
              FROM outbox_messages
             WHERE dead_lettered_at IS NOT NULL AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
             ORDER BY dead_lettered_at, id
             LIMIT :limit
            """;

    /**
     * Same id, scheduled now, attempts from zero: the polling relay or the safety net publishes it again. The
     * outbox_ready_again trigger (V4) makes it ready in this transaction, which the watermark cannot have passed.
     */
    private static final String REQUEUE = """
            UPDATE outbox_messages
               SET dead_lettered_at = NULL, attempts = 0, next_attempt_at = now(), last_error = NULL,
                   lock_id = NULL, locked_until = NULL
             WHERE dead_lettered_at IS NOT NULL
               AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
               AND (CAST(:eventType AS text) IS NULL OR event_type = CAST(:eventType AS text))
               AND (CAST(:after AS timestamptz) IS NULL OR dead_lettered_at >= CAST(:after AS timestamptz))
               AND (CAST(:before AS timestamptz) IS NULL OR dead_lettered_at < CAST(:before AS timestamptz))
            """;

    /** Oldest published rows first, a bounded batch per statement; pending and dead-lettered rows never. */
    private static final String DELETE_PUBLISHED = """
            DELETE FROM outbox_messages
             WHERE id IN (SELECT id FROM outbox_messages
                           WHERE published_at < now() - make_interval(secs => :ageSeconds)
                           ORDER BY published_at
                           LIMIT :batchSize)
            """;

    private static final String ALREADY_HANDLED = """
            SELECT id FROM outbox_messages
             WHERE id = ANY(CAST(:ids AS uuid[])) AND (published_at IS NOT NULL OR dead_lettered_at IS NOT NULL)
            """;

    private static final String BACKLOG = """
            SELECT count(*) FILTER (WHERE published_at IS NULL) AS pending,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(occurred_at) FILTER (WHERE published_at IS NULL)), 0)
                       ::bigint AS oldest_seconds,
                   (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL) AS dead_lettered,
                   count(*) AS past_watermark
              FROM outbox_messages
             WHERE ready_xid >= :watermark AND dead_lettered_at IS NULL
            """;

    /**
     * The stored watermark. One beyond every transaction this cluster has begun was copied from another cluster (a
     * logical copy or a restore carries the table, not the transaction counter): the relay starts again from 0.
     */
    private static final String WATERMARK = """
            SELECT CASE WHEN ready_xid > pg_snapshot_xmax(pg_current_snapshot())::text::bigint THEN 0
                        ELSE ready_xid END
              FROM outbox_watermark
            """;

    /**
     * Raises the watermark from {@code :base} (a value it had, bound so that the planner sees it), never lowers it
     * but to leave another cluster's value, to the least of: the oldest transaction still running (it may yet commit
     * a ready row), the oldest ready row from the base on, and one past the newest row (so an idle outbox does not
     * write it again and again). A value computed in any snapshot stays a lower bound of every row ready from then
     * on: a row ready then is counted, and any row made ready later is made so by a transaction at or beyond that
     * snapshot's xmin. So concurrent advances need no lock of their own. The row is written, and the statement
     * commits durably, only when the watermark moves.
     */
    private static final String ADVANCE_WATERMARK = """
            WITH computed AS (
                SELECT LEAST(pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                             (SELECT min(message.ready_xid) FROM outbox_messages message
                               WHERE message.ready_xid >= :base
                                 AND message.published_at IS NULL AND message.dead_lettered_at IS NULL),
                             COALESCE((SELECT max(message.ready_xid) + 1 FROM outbox_messages message
                                        WHERE message.dead_lettered_at IS NULL), :base)) AS raised
            ), updated AS (
                UPDATE outbox_watermark
                   SET ready_xid = computed.raised
                  FROM computed
                 WHERE computed.raised > outbox_watermark.ready_xid
                    OR outbox_watermark.ready_xid > pg_snapshot_xmax(pg_current_snapshot())::text::bigint
                RETURNING outbox_watermark.ready_xid
            )
            SELECT COALESCE((SELECT ready_xid FROM updated), :base)
            """;

    /**
     * What waits: rows neither published nor dead-lettered, the age of the oldest, the dead letters, and how many
     * rows a claim reads from the watermark on (published ones included: what holds the watermark back shows here).
     */
    public record Backlog(long pending, long oldestSeconds, long deadLettered, long pastWatermark) {}

    private final JdbcClient jdbc;
    private final String claimInAnyOrder = CLAIM.formatted("");
    private final String claimEarliestPerAggregate = CLAIM.formatted(EARLIEST_OF_ITS_AGGREGATE);

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
        long watermark = watermark();
        List<OutboxRow> claimed =
                new ArrayList<>(jdbc.sql(perAggregateOrder ? claimEarliestPerAggregate : claimInAnyOrder)
                        .param("watermark", watermark)
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
     * @param owner the worker that must still hold the rows' lease, or {@code null} (cdc) for any unpublished row
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

    /** Parks a row the broker will never accept. The reason is sanitized; the payload never goes into it. */
    public void deadLetter(UUID id, Throwable cause) {
        jdbc.sql(DEAD_LETTER)
                .param("id", id)
                .param("error", ErrorText.sanitize(cause))
                .update();
    }

    public List<DeadLetter> deadLetters(UUID id, boolean withPayload, int limit) {
        return jdbc.sql(DEAD_LETTERS)
                .param("withPayload", withPayload)
                .param("id", id)
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

    /** @return how many dead letters were requeued */
    public int requeue(DeadLetter.Selection selection) {
        return jdbc.sql(REQUEUE)
                .param("id", selection.id())
                .param("eventType", selection.eventType())
                .param("after", timestamp(selection.deadLetteredAfter()))
                .param("before", timestamp(selection.deadLetteredBefore()))
                .update();
    }

    /** @return rows deleted by this one statement (at most {@code batchSize}) */
    public int deletePublishedOlderThan(Duration age, int batchSize) {
        return jdbc.sql(DELETE_PUBLISHED)
                .param("ageSeconds", (double) age.toSeconds())
                .param("batchSize", batchSize)
                .update();
    }

    /** Raises the watermark first: every relay runs this every {@code relay.monitor-interval}. */
    public Backlog backlog() {
        return jdbc.sql(BACKLOG)
                .param("watermark", advanceWatermark())
                .query((rs, n) -> new Backlog(
                        rs.getLong("pending"),
                        rs.getLong("oldest_seconds"),
                        rs.getLong("dead_lettered"),
                        rs.getLong("past_watermark")))
                .single();
    }

    /**
     * The watermark as stored: claims read from it and leave raising it to {@link #backlog()}, which every relay
     * runs every {@code relay.monitor-interval}. A watermark a few seconds old only costs a claim the rows published
     * since, and a lease owner's marks take those out of the index (V4).
     */
    private long watermark() {
        return jdbc.sql(WATERMARK).query(Long.class).single();
    }

    /**
     * @return the raised watermark: every row that is ready now or becomes ready later has a ready_xid at or beyond
     *     it (see the V4 migration)
     */
    private long advanceWatermark() {
        return jdbc.sql(ADVANCE_WATERMARK)
                .param("base", watermark())
                .query(Long.class)
                .single();
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
