package dev.outbox.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server (zonky embedded binaries) configured for logical decoding: wal_level=logical with
 * replication slots and WAL senders, listening on 127.0.0.1 only. Databases isolate users of one server.
 */
public final class PostgresServer implements AutoCloseable {

    public static final String USER = "postgres";
    public static final String PASSWORD = "postgres";

    private final EmbeddedPostgres postgres;

    private PostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /**
     * @param port        the port to listen on
     * @param dataDir     where the cluster lives; {@code null} for a throw-away directory
     * @param durable     keep fsync on (local run) or trade crash-of-the-OS safety for speed (tests)
     */
    public static PostgresServer start(int port, Path dataDir, boolean durable) {
        return start(port, dataDir, durable, java.util.Map.of());
    }

    /** As {@link #start(int, Path, boolean)}, with server settings overridden (e.g. {@code wal_level=replica}). */
    public static PostgresServer start(int port, Path dataDir, boolean durable, java.util.Map<String, String> settings) {
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("wal_level", "logical")
                    .setServerConfig("max_replication_slots", "20")
                    .setServerConfig("max_wal_senders", "20")
                    .setServerConfig("max_slot_wal_keep_size", "1GB")
                    .setServerConfig("wal_sender_timeout", "30s")
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("shared_buffers", "256MB")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", durable ? "on" : "off")
                    .setServerConfig("full_page_writes", durable ? "on" : "off")
                    .setServerConfig("log_min_messages", "warning")
                    .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                    .setErrorRedirector(ProcessBuilder.Redirect.DISCARD);
            settings.forEach(builder::setServerConfig);
            if (dataDir != null) {
                builder.setDataDirectory(dataDir).setCleanDataDirectory(false);
            }
            return new PostgresServer(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start", e);
        }
    }

    public int port() {
        return postgres.getPort();
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** Creates the database if it does not exist yet. */
    public PostgresServer createDatabase(String name) {
        if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + name);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return this;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
