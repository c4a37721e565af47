package dev.outbox.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server (zonky embedded binaries) configured for logical decoding: wal_level=logical with
 * replication slots and WAL senders, listening on 127.0.0.1 only. Every connection proves its password with
 * scram-sha-256, the superuser's included (zonky's initdb trusts everyone; the pg_hba.conf written here on every
 * start replaces that). Databases isolate users of one server.
 */
public final class PostgresServer implements Postgres {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostgresServer.class);

    /**
     * The major version of the binaries this build runs (the parent pom's postgres-binaries.version): compose's
     * image, the container path's and a local run's data directory use the same; ServerVersionsIntegrationTests
     * holds it to a started server and to compose.
     */
    public static final String MAJOR_VERSION = "18";

    private final EmbeddedPostgres postgres;
    private final Path dataDir;

    private PostgresServer(EmbeddedPostgres postgres, Path dataDir) {
        this.postgres = postgres;
        this.dataDir = dataDir;
    }

    /**
     * Starts a server on {@code dataDir}, creating the cluster there on first use and reusing it after that.
     *
     * @param port      the port to listen on
     * @param durable   keep fsync and full-page writes on (local run) or trade crash-of-the-OS safety for speed
     * @param overrides server settings over {@link #serverSettings} (e.g. {@code wal_level=replica})
     */
    public static PostgresServer start(int port, Path dataDir, boolean durable, Map<String, String> overrides) {
        return start(port, dataDir, durable, overrides, true);
    }

    /**
     * As {@link #start(int, Path, boolean, Map)}; with {@code stopsWithTheJvm} false the server has no shutdown hook
     * of its own (the JVM's hooks run at once, all together): its owner stops it with {@link #close()} when its
     * clients have stopped.
     */
    public static PostgresServer start(
            int port, Path dataDir, boolean durable, Map<String, String> overrides, boolean stopsWithTheJvm) {
        try {
            return new PostgresServer(
                    builder(port, dataDir, durable, overrides)
                            .setRegisterShutdownHook(stopsWithTheJvm)
                            .start(),
                    dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start", e);
        }
    }

    private static EmbeddedPostgres.Builder builder(
            int port, Path dir, boolean durable, Map<String, String> overrides) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                // passed to initdb: the superuser gets its password, no connection is trusted
                .setLocaleConfig("auth-host", "scram-sha-256")
                .setLocaleConfig("auth-local", "scram-sha-256")
                .setLocaleConfig("pwfile", passwordFile().toString())
                .setDataDirectoryCustomizer(PostgresServer::requirePasswords)
                // zonky's own readiness check logs in as the superuser too
                .setConnectConfig("password", LocalCredentials.POSTGRES.password())
                .setPort(port)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                .setErrorRedirector(ProcessBuilder.Redirect.DISCARD);
        serverSettings(durable).forEach(builder::setServerConfig);
        overrides.forEach(builder::setServerConfig);
        return builder.setDataDirectory(dir).setCleanDataDirectory(false);
    }

    /**
     * The server settings of every PostgreSQL the tests and the local run use, embedded or in a container (the
     * container path passes them as {@code -c} options), so both paths decode, retain WAL and authenticate alike.
     *
     * @param durable keep fsync and full-page writes on (local run) or trade crash-of-the-OS safety for speed (tests)
     */
    public static Map<String, String> serverSettings(boolean durable) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wal_level", "logical");
        settings.put("max_replication_slots", "20");
        settings.put("max_wal_senders", "20");
        settings.put("max_slot_wal_keep_size", "1GB");
        settings.put("wal_sender_timeout", "30s");
        settings.put("max_connections", "300");
        // a prepared transaction's outbox rows are tested against the stream's horizon
        settings.put("max_prepared_transactions", "10");
        settings.put("shared_buffers", "256MB");
        settings.put("synchronous_commit", "on");
        settings.put("password_encryption", "scram-sha-256");
        settings.put("fsync", durable ? "on" : "off");
        settings.put("full_page_writes", durable ? "on" : "off");
        settings.put("log_min_messages", "warning");
        return settings;
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
            java.nio.file.Files.writeString(file, LocalCredentials.POSTGRES.password() + "\n");
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return postgres.getPort();
    }

    /** Where the cluster lives. */
    public Path dataDirectory() {
        return dataDir;
    }

    /**
     * Stops the server and waits until its postmaster has exited (it deletes postmaster.pid last, which is what
     * {@code pg_ctl -w} waits for): zonky gives pg_ctl five seconds, and a durable server's shutdown checkpoint can take
     * longer.
     *
     * @return whether the postmaster exited within 60 s (a copy or deletion of the data directory is safe only then)
     */
    public synchronized boolean stop() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!awaitStopped(Duration.ofSeconds(60))) {
            log.warn("PostgreSQL in {} did not stop within 60 s", dataDir);
            return false;
        }
        return true;
    }

    @Override
    public void close() {
        stop();
    }

    /** @return whether postmaster.pid is gone: the postmaster removes it as the last step of its exit */
    private boolean awaitStopped(Duration timeout) {
        return await(() -> !java.nio.file.Files.exists(dataDir.resolve("postmaster.pid")), timeout);
    }

    /**
     * Polls every 10 ms: a postmaster is not the caller's child (pg_ctl started it), so its exit is watched, not
     * waited for.
     *
     * @return whether {@code done} came true within {@code timeout}
     */
    public static boolean await(java.util.function.BooleanSupplier done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
