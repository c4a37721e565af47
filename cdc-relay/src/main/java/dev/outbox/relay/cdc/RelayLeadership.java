package dev.outbox.relay.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import org.postgresql.core.BaseConnection;
import org.postgresql.util.HostSpec;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * One active relay per slot. The leader holds a session-level PostgreSQL advisory lock on a dedicated
 * connection; when its process dies, PostgreSQL ends the session, frees the lock, and a standby takes over.
 *
 * <p>The lock is taken on whichever configured server is the primary ({@link DatabaseProperties#jdbcUrl()}), and
 * the lease remembers that server: the engine streams from the server the lock is held on. When the primary dies
 * the lock dies with it; the next attempt finds the promoted standby, where the lock is free (advisory locks are
 * not replicated), and the engine follows.
 */
final class RelayLeadership {

    private static final String TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext('outbox-relay:' || :slot))";

    private final DatabaseProperties db;
    private final String slot;

    RelayLeadership(DatabaseProperties db, String slot) {
        this.db = db;
        this.slot = slot;
    }

    /** The held lock, or {@code null} if another instance leads. */
    Lease tryAcquire() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", db.user());
        props.setProperty("password", db.password());
        props.setProperty("ApplicationName", "outbox-relay-leader");
        props.setProperty("tcpKeepAlive", "true");
        props.setProperty("socketTimeout", "30");
        Connection connection = DriverManager.getConnection(db.jdbcUrl(), props);
        try {
            JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(connection, true));
            Boolean locked =
                    jdbc.sql(TRY_LOCK).param("slot", slot).query(Boolean.class).single();
            if (Boolean.TRUE.equals(locked)) {
                HostSpec server = connection
                        .unwrap(BaseConnection.class)
                        .getQueryExecutor()
                        .getHostSpec();
                return new Lease(connection, new DatabaseProperties.Server(server.getHost(), server.getPort()));
            }
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
        connection.close();
        return null;
    }

    /** The slot's walsender when another backend than this session's holds it (a leader that died). */
    private static final String END_STALE_WALSENDER = """
            SELECT count(pg_terminate_backend(active_pid))
              FROM pg_replication_slots
             WHERE slot_name = :slot AND active_pid IS NOT NULL AND active_pid <> pg_backend_pid()
            """;

    /** The advisory lock, alive as long as its connection is. */
    static final class Lease implements AutoCloseable {
        private final Connection connection;
        private final DatabaseProperties.Server server;

        private Lease(Connection connection, DatabaseProperties.Server server) {
            this.connection = connection;
            this.server = server;
        }

        /** The server this lock is held on: the primary when it was taken. */
        DatabaseProperties.Server server() {
            return server;
        }

        /**
         * Ends a walsender that still holds the slot. Only the leader calls this, and it leads because the previous
         * leader's session released the lock: that leader is gone, or has lost its leadership and stops its engine.
         *
         * @return how many walsenders were ended (0 or 1)
         */
        int endStaleWalsender(String slot) {
            return JdbcClient.create(new SingleConnectionDataSource(connection, true))
                    .sql(END_STALE_WALSENDER)
                    .param("slot", slot)
                    .query(Long.class)
                    .single()
                    .intValue();
        }

        boolean isValid() {
            try {
                return connection.isValid(5);
            } catch (SQLException e) {
                return false;
            }
        }

        @Override
        public void close() {
            try {
                connection.close();
            } catch (SQLException e) {
                // closing the session releases the lock either way
            }
        }
    }
}
