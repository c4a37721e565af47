package dev.outbox.relay.polling;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The article's lease protocol on outbox_messages. Each method is one short auto-commit statement: a claim
 * commits at once, publishing happens outside any transaction, and only the lease owner may mark a row.
 */
final class LeaseClaimer {

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

    private static final String CLAIM = """
            WITH candidates AS (
                SELECT candidate.id, candidate.lock_id AS previous_lock
                  FROM outbox_messages candidate
                 WHERE candidate.published_at IS NULL
                   AND candidate.dead_lettered_at IS NULL
                   AND candidate.next_attempt_at <= now()
                   AND (candidate.locked_until IS NULL OR candidate.locked_until < now())
                   AND candidate.occurred_at <= now() - make_interval(secs => :graceSeconds)
                   %s
                 ORDER BY candidate.occurred_at, candidate.id
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

    private static final String MARK_PUBLISHED = """
            UPDATE outbox_messages
               SET published_at = now(), lock_id = NULL, locked_until = NULL
             WHERE id = ANY(CAST(:ids AS uuid[])) AND lock_id = :workerId AND published_at IS NULL
            """;

    private static final String SCHEDULE_RETRY = """
            UPDATE outbox_messages
               SET next_attempt_at = now() + make_interval(secs => :delaySeconds),
                   last_error = :error,
                   lock_id = NULL,
                   locked_until = NULL,
                   dead_lettered_at = CASE WHEN attempts >= :maxAttempts THEN now() END
             WHERE id = :id AND lock_id = :workerId
            RETURNING dead_lettered_at IS NOT NULL AS dead_lettered
            """;

    private final JdbcClient jdbc;
    private final String claim;

    LeaseClaimer(JdbcClient jdbc, boolean perAggregateOrder) {
        this.jdbc = jdbc;
        this.claim = CLAIM.formatted(perAggregateOrder ? EARLIEST_OF_ITS_AGGREGATE : "");
    }

    /** Claims up to {@code batchSize} ready rows for {@code workerId}, re-sorted by occurred_at, id. */
    List<Claimed> claim(UUID workerId, int batchSize, Duration lease, Duration grace) {
        List<Claimed> claimed = new java.util.ArrayList<>(jdbc.sql(claim)
                .param("graceSeconds", grace.toMillis() / 1000.0)
                .param("batchSize", batchSize)
                .param("workerId", workerId)
                .param("leaseSeconds", lease.toMillis() / 1000.0)
                .query((rs, n) -> new Claimed(
                        rs.getObject("id", UUID.class),
                        rs.getString("aggregate_type"),
                        rs.getObject("aggregate_id", UUID.class),
                        rs.getLong("aggregate_version"),
                        rs.getString("event_type"),
                        rs.getInt("schema_version"),
                        rs.getString("payload"),
                        rs.getString("trace_parent"),
                        rs.getTimestamp("occurred_at"),
                        rs.getInt("attempts"),
                        rs.getObject("previous_lock", UUID.class)))
                .list());
        claimed.sort(Comparator.comparing(Claimed::occurredAt).thenComparing(Claimed::id));
        return claimed;
    }

    /** @return how many of the rows this worker still owned and marked */
    int markPublished(Collection<UUID> ids, UUID workerId) {
        return ids.isEmpty() ? 0 : jdbc.sql(MARK_PUBLISHED).param("ids", ids.toArray(UUID[]::new))
                .param("workerId", workerId).update();
    }

    /**
     * Releases the lease with the next attempt time, or dead-letters the row once it used its attempts.
     *
     * @return empty if the lease was lost to another worker (nothing was changed)
     */
    java.util.Optional<Boolean> scheduleRetry(UUID id, UUID workerId, Duration delay, String error, int maxAttempts) {
        return jdbc.sql(SCHEDULE_RETRY)
                .param("delaySeconds", delay.toMillis() / 1000.0)
                .param("error", error)
                .param("maxAttempts", maxAttempts)
                .param("id", id)
                .param("workerId", workerId)
                .query(Boolean.class)
                .optional();
    }

    record Claimed(UUID id, String aggregateType, UUID aggregateId, long aggregateVersion, String eventType,
            int schemaVersion, String payloadJson, String traceParent, Timestamp occurredAt, int attempts,
            UUID previousLock) {
    }
}
