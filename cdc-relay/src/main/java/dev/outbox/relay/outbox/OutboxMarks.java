package dev.outbox.relay.outbox;

import java.util.Collection;
import java.util.UUID;

import dev.outbox.security.ErrorText;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The relay's writes to outbox_messages, shared by both modes, so that pending and published mean the same
 * whichever mode ran. Each method is its own short transaction (auto-commit).
 */
@Component
public final class OutboxMarks {

    private static final String MARK_PUBLISHED = """
            UPDATE outbox_messages
               SET published_at = now(), lock_id = NULL, locked_until = NULL
             WHERE id = ANY(CAST(:ids AS uuid[])) AND published_at IS NULL
            """;

    private static final String DEAD_LETTER = """
            UPDATE outbox_messages
               SET dead_lettered_at = now(), last_error = :error, lock_id = NULL, locked_until = NULL
             WHERE id = :id AND published_at IS NULL
            """;

    private final JdbcClient jdbc;

    OutboxMarks(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Marks a batch published in one statement; rows already marked (a duplicate delivery) are left alone. The
     * ids travel as one array parameter: one statement text whatever the batch size, nothing to re-plan.
     */
    public int markPublished(Collection<UUID> ids) {
        return ids.isEmpty() ? 0 : jdbc.sql(MARK_PUBLISHED).param("ids", ids.toArray(UUID[]::new)).update();
    }

    /** Parks a row the broker will never accept. The reason is sanitized; the payload never goes into it. */
    public void deadLetter(UUID id, Throwable cause) {
        jdbc.sql(DEAD_LETTER).param("id", id).param("error", ErrorText.sanitize(cause)).update();
    }
}
