package dev.outbox.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server (zonky embedded binaries) configured for logical decoding: wal_level=logical with
 * replication slots and WAL senders, listening on 127.0.0.1 only. Every connection proves its password with
 * scram-sha-256, the superuser's included (zonky's initdb trusts everyone; the pg_hba.conf written here on every
 * start replaces that). Databases isolate users of one server.
 */
public final class PostgresServer implements AutoCloseable {

    public static final String USER = "postgres";
    public static final String PASSWORD = "postgres";

    private volatile EmbeddedPostgres postgres;
    private final Path dataDir;
    private final boolean durable;
    private final java.util.Map<String, String> settings;
    private final boolean throwAway;

    private PostgresServer(
            EmbeddedPostgres postgres,
            Path dataDir,
            boolean durable,
            java.util.Map<String, String> settings,
            boolean throwAway) {
        this.throwAway = throwAway;
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.durable = durable;
        this.settings = settings;
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
    public static PostgresServer start(
            int port, Path dataDir, boolean durable, java.util.Map<String, String> settings) {
        try {
            Path dir = dataDir != null ? dataDir : java.nio.file.Files.createTempDirectory("pg-data");
            return new PostgresServer(
                    builder(port, dir, durable, settings).start(), dir, durable, settings, dataDir == null);
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start", e);
        }
    }

    private static EmbeddedPostgres.Builder builder(
            int port, Path dir, boolean durable, java.util.Map<String, String> settings) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                // passed to initdb: the superuser gets its password, no connection is trusted
                .setLocaleConfig("auth-host", "scram-sha-256")
                .setLocaleConfig("auth-local", "scram-sha-256")
                .setLocaleConfig("pwfile", passwordFile().toString())
                .setDataDirectoryCustomizer(PostgresServer::requirePasswords)
                // zonky's own readiness check logs in as the superuser too
                .setConnectConfig("password", PASSWORD)
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
                .setServerConfig("password_encryption", "scram-sha-256")
                .setServerConfig("fsync", durable ? "on" : "off")
                .setServerConfig("full_page_writes", durable ? "on" : "off")
                .setServerConfig("log_min_messages", "warning")
                .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                .setErrorRedirector(ProcessBuilder.Redirect.DISCARD);
        settings.forEach(builder::setServerConfig);
        return builder.setDataDirectory(dir).setCleanDataDirectory(false);
    }

    private static final String PG_HBA = """
            # Written by PostgresServer on every start: every connection, local or TCP, replication included,
            # proves its password with scram-sha-256. Nothing is trusted.
            local   all          all                  scram-sha-256
            host    all          all   127.0.0.1/32   scram-sha-256
            host    all          all   ::1/128        scram-sha-256
            host    replication  all   127.0.0.1/32   scram-sha-256
            host    replication  all   ::1/128        scram-sha-256
            """;

    private static void requirePasswords(java.io.File dataDirectory) {
        try {
            java.nio.file.Files.writeString(dataDirectory.toPath().resolve("pg_hba.conf"), PG_HBA);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** initdb's --pwfile: the superuser's password, in a file only this user can read, deleted on exit. */
    private static Path passwordFile() {
        try {
            Path file = java.nio.file.Files.createTempFile(
                    "pg-superuser",
                    ".pw",
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
            java.nio.file.Files.writeString(file, PASSWORD + "\n");
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + name);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return this;
    }

    /**
     * Creates the pipeline's databases and least-privilege roles from the compose stack's own init script
     * (docker/postgres/init.sql, packaged as {@code local-postgres/init.sql}), once: nothing happens when the
     * role payments_app exists already.
     *
     * @return whether the script ran
     */
    public boolean applyInitScript() {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = 'payments_app'")) {
            if (rs.next()) {
                return false;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the roles", e);
        }
        String script;
        try (var in = PostgresServer.class.getResourceAsStream("/local-postgres/init.sql")) {
            if (in == null) {
                throw new IllegalStateException("local-postgres/init.sql is not on the class path");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        record Step(String database, String sql) {}
        String database = "postgres";
        StringBuilder sql = new StringBuilder();
        List<Step> steps = new ArrayList<>();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("\\connect ")) {
                database = trimmed.substring("\\connect ".length()).strip();
            } else if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                sql.append(line).append('\n');
                if (trimmed.endsWith(";")) {
                    steps.add(new Step(database, sql.toString()));
                    sql.setLength(0);
                }
            }
        }
        for (Step each : steps) {
            // one statement per round trip: CREATE DATABASE refuses to run inside the implicit transaction of a batch
            try (Connection c = connect(each.database());
                    Statement s = c.createStatement()) {
                s.execute(each.sql());
            } catch (SQLException e) {
                throw new IllegalStateException("init.sql failed on database " + each.database(), e);
            }
        }
        return true;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
    }

    /**
     * Crashes the server the way {@code pg_ctl -m immediate stop} does, by sending the postmaster SIGQUIT (no
     * checkpoint; crash recovery on the way back up), then starts it again with the same command line, data directory and port. Every client
     * connection, replication included, is cut.
     */
    public synchronized void restartImmediately() {
        try {
            long pid = Long.parseLong(java.nio.file.Files.readAllLines(dataDir.resolve("postmaster.pid"))
                    .get(0)
                    .trim());
            // what pg_ctl -m immediate does: SIGQUIT to the postmaster
            Process quit = new ProcessBuilder("kill", "-QUIT", String.valueOf(pid)).start();
            if (quit.waitFor() != 0) {
                throw new IllegalStateException("could not signal the postmaster " + pid);
            }
            ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
            int port = port();
            Ports.awaitClosed(port, Duration.ofSeconds(30));
            postgres.close();
            postgres = builder(port, dataDir, durable, settings).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            postgres.close();
            if (throwAway) {
                try (var files = java.nio.file.Files.walk(dataDir)) {
                    files.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
