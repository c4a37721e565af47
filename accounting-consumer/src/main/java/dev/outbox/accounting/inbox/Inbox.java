package dev.outbox.accounting.inbox;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The inbox, and the one owner of inbox_messages: which event ids this consumer has already taken. Taking runs in
 * the same transaction as the effect, so the marker and the effect commit or roll back together; the primary key
 * decides, never a prior SELECT, and a duplicate is never caught as an error (PostgreSQL would abort the
 * transaction).
 */
@Component
public final class Inbox {

    private static final String CLAIM = """
            INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
            VALUES (:consumer, :messageId, :now)
            ON CONFLICT DO NOTHING
            """;

    /** A batch's markers in one statement; returns the ids this transaction took. */
    private static final String CLAIM_ALL = """
            INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
            SELECT :consumer, m.id, :now FROM unnest(CAST(:ids AS uuid[])) AS m(id)
            ON CONFLICT DO NOTHING
            RETURNING message_id
            """;

    /** Oldest first, a bounded batch per statement, this consumer's rows only. */
    private static final String DELETE_OLDER_THAN = """
            DELETE FROM inbox_messages
             WHERE consumer_name = :consumer
               AND message_id IN (SELECT message_id FROM inbox_messages
                                   WHERE consumer_name = :consumer
                                     AND processed_at < now() - make_interval(secs => :ageSeconds)
                                   ORDER BY processed_at
                                   LIMIT :batchSize)
            """;

    private final JdbcClient jdbc;

    Inbox(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * {@code true} if this transaction took the message; {@code false} if it was already processed (or a
     * concurrent transaction that took it has committed). Must run in the effect's transaction.
     */
    public boolean claim(String consumer, UUID messageId) {
        return jdbc.sql(CLAIM)
                        .param("consumer", consumer)
                        .param("messageId", messageId)
                        .param("now", Timestamp.from(Instant.now()))
                        .update()
                == 1;
    }

    /** The ids among {@code messageIds} this transaction took (the rest were processed before). */
    public Set<UUID> claimAll(String consumer, Collection<UUID> messageIds) {
        return new HashSet<>(jdbc.sql(CLAIM_ALL)
                .param("consumer", consumer)
                .param("ids", messageIds.toArray(UUID[]::new))
                .param("now", Timestamp.from(Instant.now()))
                .query(UUID.class)
                .list());
    }

    /** Deletes up to {@code batchSize} of this consumer's markers older than {@code age}, in its own statement. */
    public int deleteOlderThan(String consumer, Duration age, int batchSize) {
        return jdbc.sql(DELETE_OLDER_THAN)
                .param("consumer", consumer)
                .param("ageSeconds", (double) age.toSeconds())
                .param("batchSize", batchSize)
                .update();
    }
}
