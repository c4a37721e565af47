package dev.outbox.accounting.deadletter;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The one owner of dlt_replays and dlt_replay_requests: which dead-letter records an operator has replayed, by whom,
 * and where the replay landed; and the requests that replayed them (who, which selection, how many). The primary key (the record's position in the dead-letter topic, and its timestamp: a recreated topic
 * starts its offsets again) decides whether a replay happens, never
 * a prior SELECT: of two concurrent replays of one record, the second waits for the first's transaction and then
 * takes nothing.
 */
@Component
final class DeadLetterReplays {

    private static final String CLAIM = """
            INSERT INTO dlt_replays (consumer_name, dlt_topic, dlt_partition, dlt_offset, dlt_timestamp, event_id,
                                     replayed_by, replayed_at)
            VALUES (:consumer, :topic, :partition, :offset, :timestamp, :eventId, :by, :now)
            ON CONFLICT DO NOTHING
            """;

    private static final String LANDED = """
            UPDATE dlt_replays SET target_partition = :targetPartition, target_offset = :targetOffset
             WHERE consumer_name = :consumer AND dlt_topic = :topic AND dlt_partition = :partition
               AND dlt_offset = :offset AND dlt_timestamp = :timestamp
            """;

    private static final String FIND = """
            SELECT r.dlt_partition, r.dlt_offset, r.dlt_timestamp, r.replayed_by, r.replayed_at, r.target_partition,
                   r.target_offset
              FROM dlt_replays r
              JOIN unnest(CAST(:partitions AS integer[]), CAST(:offsets AS bigint[]), CAST(:timestamps AS bigint[]))
                   AS k(dlt_partition, dlt_offset, dlt_timestamp)
                ON k.dlt_partition = r.dlt_partition AND k.dlt_offset = r.dlt_offset
               AND k.dlt_timestamp = r.dlt_timestamp
             WHERE r.consumer_name = :consumer AND r.dlt_topic = :topic
            """;

    private static final String REQUESTED = """
            INSERT INTO dlt_replay_requests (consumer_name, dlt_topic, requested_by, requested_at, selection,
                                             dead_letters, replayed, already_replayed, digest)
            VALUES (:consumer, :topic, :by, :now, :selection, :deadLetters, :replayed, :alreadyReplayed, :digest)
            """;

    private static final String REQUESTS = """
            SELECT id, requested_by, requested_at, selection, dead_letters, replayed, already_replayed, digest
              FROM dlt_replay_requests
             WHERE consumer_name = :consumer AND dlt_topic = :topic
             ORDER BY id DESC
             LIMIT :limit
            """;

    /** One audited replay request. */
    record Request(
            long id,
            String requestedBy,
            Instant requestedAt,
            String selection,
            long deadLetters,
            int replayed,
            int alreadyReplayed,
            String digest) {}

    /** A dead-letter record's identity: its position, and its timestamp (epoch milliseconds). */
    record Position(int partition, long offset, long timestamp) {}

    /** @param targetPartition where the replay landed on the events topic */
    record Replay(String by, Instant at, Integer targetPartition, Long targetOffset) {}

    private final JdbcClient jdbc;

    DeadLetterReplays(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * {@code true} if this transaction takes the replay of that record; {@code false} if it was replayed before.
     * Must run in the transaction that publishes the replay, so a failed publish leaves no row.
     */
    boolean claim(String consumer, String topic, Position position, UUID eventId, String by) {
        return jdbc.sql(CLAIM)
                        .param("consumer", consumer)
                        .param("topic", topic)
                        .param("partition", position.partition())
                        .param("offset", position.offset())
                        .param("timestamp", position.timestamp())
                        .param("timestamp", position.timestamp())
                        .param("eventId", eventId)
                        .param("by", by)
                        .param("now", Timestamp.from(Instant.now()))
                        .update()
                == 1;
    }

    /** Audits a request that replayed a selection, after its records (each in its own transaction). */
    void requested(
            String consumer,
            String topic,
            String by,
            DeadLetter.Selection selection,
            DeadLetter.Matched matched,
            int replayed,
            int alreadyReplayed) {
        jdbc.sql(REQUESTED)
                .param("consumer", consumer)
                .param("topic", topic)
                .param("by", by)
                .param("now", Timestamp.from(Instant.now()))
                .param("selection", selection.toString())
                .param("deadLetters", matched.deadLetters())
                .param("replayed", replayed)
                .param("alreadyReplayed", alreadyReplayed)
                .param("digest", matched.digest())
                .update();
    }

    /** The latest audited requests, newest first. */
    List<Request> requests(String consumer, String topic, int limit) {
        return jdbc.sql(REQUESTS)
                .param("consumer", consumer)
                .param("topic", topic)
                .param("limit", limit)
                .query((rs, n) -> new Request(
                        rs.getLong("id"),
                        rs.getString("requested_by"),
                        rs.getTimestamp("requested_at").toInstant(),
                        rs.getString("selection"),
                        rs.getLong("dead_letters"),
                        rs.getInt("replayed"),
                        rs.getInt("already_replayed"),
                        rs.getString("digest")))
                .list();
    }

    /** Records where the replay landed; in the claim's transaction, after the broker acknowledged it. */
    void landed(String consumer, String topic, Position position, int targetPartition, long targetOffset) {
        jdbc.sql(LANDED)
                .param("consumer", consumer)
                .param("topic", topic)
                .param("partition", position.partition())
                .param("offset", position.offset())
                .param("timestamp", position.timestamp())
                .param("targetPartition", targetPartition)
                .param("targetOffset", targetOffset)
                .update();
    }

    /** The replays of those records, by position; one statement, outside any transaction. */
    Map<Position, Replay> find(String consumer, String topic, Collection<Position> positions) {
        Map<Position, Replay> found = new HashMap<>();
        if (positions.isEmpty()) {
            return found;
        }
        jdbc.sql(FIND)
                .param("consumer", consumer)
                .param("topic", topic)
                .param(
                        "partitions",
                        positions.stream().mapToInt(Position::partition).toArray())
                .param("offsets", positions.stream().mapToLong(Position::offset).toArray())
                .param(
                        "timestamps",
                        positions.stream().mapToLong(Position::timestamp).toArray())
                .query((rs, n) -> found.put(
                        new Position(rs.getInt("dlt_partition"), rs.getLong("dlt_offset"), rs.getLong("dlt_timestamp")),
                        new Replay(
                                rs.getString("replayed_by"),
                                rs.getTimestamp("replayed_at").toInstant(),
                                (Integer) rs.getObject("target_partition"),
                                (Long) rs.getObject("target_offset"))))
                .list();
        return found;
    }
}
