package dev.outbox.accounting.inbox;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The inbox: which event ids this consumer has already taken. Must run in the same transaction as the effect,
 * so the marker and the effect commit or roll back together.
 */
@Component
public final class Inbox {

    private static final String CLAIM = """
            INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
            VALUES (:consumer, :messageId, :now)
            ON CONFLICT DO NOTHING
            """;

    private final JdbcClient jdbc;

    Inbox(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * {@code true} if this transaction took the message; {@code false} if it was already processed (or a
     * concurrent transaction that took it has committed). The primary key decides, never a prior SELECT.
     */
    public boolean claim(String consumer, UUID messageId) {
        return jdbc.sql(CLAIM)
                .param("consumer", consumer)
                .param("messageId", messageId)
                .param("now", Timestamp.from(Instant.now()))
                .update() == 1;
    }
}
