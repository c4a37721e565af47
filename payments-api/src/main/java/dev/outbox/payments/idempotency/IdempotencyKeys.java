package dev.outbox.payments.idempotency;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import dev.outbox.payments.jdbc.Write;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
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
     * statement wait until it commits or rolls back (the primary key is the arbiter), then return no row. The wait
     * is bounded: the row to insert comes from the lock_wait query, which sets the transaction's lock_timeout
     * before the insert can wait, in the same round trip.
     */
    private static final String CLAIM = """
            WITH lock_wait AS (SELECT set_config('lock_timeout', :timeout, true))
            INSERT INTO idempotency_keys (client_id, idempotency_key, request_hash, created_at, expires_at)
            SELECT :client, :key, :hash, CAST(:now AS timestamptz), CAST(:expiresAt AS timestamptz) FROM lock_wait
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

    private final JdbcClient jdbc;

    IdempotencyKeys(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Takes the key for this transaction, waiting at most {@code lockWaitMillis} for a concurrent holder (then a
     * {@link org.springframework.dao.PessimisticLockingFailureException}); false when the key is recorded and live.
     */
    boolean claim(String client, String key, String hash, Instant now, Instant expiresAt, long lockWaitMillis) {
        return jdbc.sql(CLAIM)
                .param("timeout", lockWaitMillis + "ms")
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

    /** Records the response of the key this transaction claimed; sent with the operation's own writes. */
    Write completion(String client, String key, StoredResponse response) {
        return new Write(
                COMPLETE,
                new MapSqlParameterSource()
                        .addValue("status", response.status())
                        .addValue("body", response.body())
                        .addValue("resourceId", response.resourceId())
                        .addValue("client", client)
                        .addValue("key", key));
    }

    /** Deletes up to {@code batchSize} expired keys in its own (auto-commit) statement; returns how many. */
    int deleteExpired(int batchSize) {
        return jdbc.sql(DELETE_EXPIRED).param("batchSize", batchSize).update();
    }

    record Recorded(String requestHash, StoredResponse response) {}
}
