package dev.outbox.payments.idempotency;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The idempotency_keys table, its one owner. Every method but {@link #deleteExpired} must run inside the
 * caller's transaction.
 */
@Component
final class IdempotencyKeys {

    /**
     * Takes the key, or takes over an expired one. A concurrent transaction holding the same key makes this
     * statement wait until it commits or rolls back (the primary key is the arbiter), then return no row.
     */
    private static final String CLAIM = """
            INSERT INTO idempotency_keys (client_id, idempotency_key, request_hash, created_at, expires_at)
            VALUES (:client, :key, :hash, :now, :expiresAt)
            ON CONFLICT (client_id, idempotency_key) DO UPDATE
               SET request_hash = EXCLUDED.request_hash,
                   response_status = NULL,
                   response_body = NULL,
                   resource_id = NULL,
                   created_at = EXCLUDED.created_at,
                   expires_at = EXCLUDED.expires_at
             WHERE idempotency_keys.expires_at <= :now
            RETURNING client_id
            """;

    private static final String FIND = """
            SELECT request_hash, response_status, response_body, resource_id
              FROM idempotency_keys
             WHERE client_id = :client AND idempotency_key = :key
            """;

    private static final String COMPLETE = """
            UPDATE idempotency_keys
               SET response_status = :status, response_body = :body, resource_id = :resourceId
             WHERE client_id = :client AND idempotency_key = :key
            """;

    /** Oldest expired keys first, a bounded batch per statement so the cleanup never becomes an I/O spike. */
    private static final String DELETE_EXPIRED = """
            DELETE FROM idempotency_keys
             WHERE (client_id, idempotency_key) IN (SELECT client_id, idempotency_key FROM idempotency_keys
                                                     WHERE expires_at < now()
                                                     ORDER BY expires_at
                                                     LIMIT :batchSize)
            """;

    private static final String LOCK_TIMEOUT = "SELECT set_config('lock_timeout', :timeout, true)";

    private final JdbcClient jdbc;

    IdempotencyKeys(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Bounds how long this transaction waits for a concurrent holder of the same key. */
    void limitLockWait(long millis) {
        jdbc.sql(LOCK_TIMEOUT)
                .param("timeout", millis + "ms")
                .query(String.class)
                .single();
    }

    boolean claim(String client, String key, String hash, Instant now, Instant expiresAt) {
        return jdbc.sql(CLAIM)
                .param("client", client)
                .param("key", key)
                .param("hash", hash)
                .param("now", Timestamp.from(now))
                .param("expiresAt", Timestamp.from(expiresAt))
                .query(String.class)
                .optional()
                .isPresent();
    }

    Optional<Recorded> find(String client, String key) {
        return jdbc.sql(FIND)
                .param("client", client)
                .param("key", key)
                .query((rs, n) -> new Recorded(
                        rs.getString("request_hash"),
                        new StoredResponse(
                                rs.getInt("response_status"),
                                rs.getBytes("response_body"),
                                rs.getObject("resource_id", UUID.class),
                                true)))
                .optional();
    }

    void complete(String client, String key, StoredResponse response) {
        jdbc.sql(COMPLETE)
                .param("status", response.status())
                .param("body", response.body())
                .param("resourceId", response.resourceId())
                .param("client", client)
                .param("key", key)
                .update();
    }

    /** Deletes up to {@code batchSize} expired keys in its own (auto-commit) statement; returns how many. */
    int deleteExpired(int batchSize) {
        return jdbc.sql(DELETE_EXPIRED).param("batchSize", batchSize).update();
    }

    record Recorded(String requestHash, StoredResponse response) {}
}
