package dev.outbox.infra;

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

    private volatile EmbeddedPostgres postgres;
    private final Path dataDir;
    private final boolean durable;
    private final Map<String, String> overrides;
    private final boolean throwAway;

    private PostgresServer(
            EmbeddedPostgres postgres,
            Path dataDir,
            boolean durable,
            Map<String, String> overrides,
            boolean throwAway) {
        this.throwAway = throwAway;
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.durable = durable;
        this.overrides = overrides;
    }

    /**
     * @param port        the port to listen on
     * @param dataDir     where the cluster lives; {@code null} for a throw-away directory
     * @param durable     keep fsync on (local run) or trade crash-of-the-OS safety for speed (tests)
     */
    /**
     * Whether the test infrastructure runs PostgreSQL durable ({@code -Dpostgres.durable=true}): the benchmark and soak
     * commands measure with fsync, full-page writes and synchronous commits on, as users run it; the test suite trades
     * crash-of-the-OS safety for speed.
     */
    public static boolean durableRequested() {
        return Boolean.getBoolean("postgres.durable");
    }

    public static PostgresServer start(int port, Path dataDir, boolean durable) {
        return start(port, dataDir, durable, Map.of());
    }

    /** As {@link #start(int, Path, boolean)}, with server settings overridden (e.g. {@code wal_level=replica}). */
    public static PostgresServer start(int port, Path dataDir, boolean durable, Map<String, String> overrides) {
        return start(
                port,
                dataDir != null ? dataDir : ThrowAwayDirectory.create("pg-data"),
                durable,
                overrides,
                dataDir == null);
    }

    /** @param throwAway delete {@code dir} when the server stops (or fails to start) */
    static PostgresServer start(int port, Path dir, boolean durable, Map<String, String> overrides, boolean throwAway) {
        try {
            return new PostgresServer(
                    builder(port, dir, durable, overrides).start(), dir, durable, overrides, throwAway);
        } catch (IOException | RuntimeException e) {
            if (throwAway) {
                ThrowAwayDirectory.delete(dir);
            }
            throw e instanceof IOException io
                    ? new UncheckedIOException("embedded PostgreSQL did not start", io)
                    : (RuntimeException) e;
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
                .setConnectConfig("password", PASSWORD)
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
    static Map<String, String> serverSettings(boolean durable) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wal_level", "logical");
        settings.put("max_replication_slots", "20");
        settings.put("max_wal_senders", "20");
        settings.put("max_slot_wal_keep_size", "1GB");
        settings.put("wal_sender_timeout", "30s");
        settings.put("max_connections", "300");
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
            java.nio.file.Files.writeString(file, PASSWORD + "\n");
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
            postgres = builder(port, dataDir, durable, overrides).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * postmaster.pid and the Unix socket with its lock file, whose directory and port are the file's fifth and fourth
     * lines (PostgreSQL's own layout).
     */
    private java.util.List<Path> filesLeftByAKill() {
        try {
            Path pidFile = dataDir.resolve("postmaster.pid");
            java.util.List<String> lines = java.nio.file.Files.readAllLines(pidFile);
            java.util.List<Path> files = new java.util.ArrayList<>(java.util.List.of(pidFile));
            if (lines.size() > 4 && !lines.get(4).isBlank()) {
                Path socket =
                        Path.of(lines.get(4).trim(), ".s.PGSQL." + lines.get(3).trim());
                files.add(socket);
                files.add(Path.of(socket + ".lock"));
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The postmaster's process id, from postmaster.pid. */
    public long postmasterPid() {
        try {
            return Long.parseLong(java.nio.file.Files.readAllLines(dataDir.resolve("postmaster.pid"))
                    .get(0)
                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * SIGKILL to the postmaster, as a dying machine would: no shutdown, no checkpoint, no restart. Its backends and
     * WAL senders notice their parent's death and exit; this returns once the postmaster is gone and its port closed.
     * The server stays down ({@link #close()} still cleans up).
     *
     * @return when the signal was delivered
     */
    public synchronized java.time.Instant killPostmaster() {
        long pid = postmasterPid();
        java.util.List<Path> leftBehind = filesLeftByAKill();
        java.time.Instant killed;
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", String.valueOf(pid)).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("could not SIGKILL the postmaster " + pid);
            }
            killed = java.time.Instant.now();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        // polled: the postmaster is not this JVM's child (pg_ctl started it), and onExit() polls slowly for those
        if (!await(() -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), Duration.ofSeconds(30))) {
            throw new IllegalStateException("the postmaster " + pid + " survived SIGKILL");
        }
        Ports.awaitClosed(port(), Duration.ofSeconds(30));
        try {
            // what a postmaster removes as it exits and a killed one cannot (close() waits for the pid file to go)
            for (Path file : leftBehind) {
                java.nio.file.Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return killed;
    }

    /**
     * A base backup without pg_basebackup (the embedded binaries have none): stops the server cleanly (fast
     * shutdown, a checkpoint), copies its data directory to {@code target}, and starts it again. A copy of a cleanly
     * stopped cluster is consistent on its own. Left out, as pg_basebackup leaves them out: the running server's pid
     * and lock files and its replication slots (a standby must not inherit the primary's slots).
     */
    public synchronized void copyStoppedTo(Path target) {
        int port = port();
        try {
            postgres.close();
            Ports.awaitClosed(port, Duration.ofSeconds(30));
            if (!awaitStopped(Duration.ofSeconds(60))) {
                throw new IllegalStateException("PostgreSQL did not stop within 60 s; its directory cannot be copied");
            }
            java.nio.file.Files.createDirectories(target);
            try (var files = java.nio.file.Files.walk(dataDir)) {
                for (Path source : (Iterable<Path>) files::iterator) {
                    Path relative = dataDir.relativize(source);
                    String first = relative.getNameCount() == 0
                            ? ""
                            : relative.getName(0).toString();
                    if (first.equals("postmaster.pid")
                            || first.equals("postmaster.opts")
                            || first.equals("epg-lock")
                            || (first.equals("pg_replslot") && relative.getNameCount() > 1)) {
                        continue;
                    }
                    Path copy = target.resolve(relative.toString());
                    if (java.nio.file.Files.isDirectory(source)) {
                        java.nio.file.Files.createDirectories(copy);
                        // PostgreSQL refuses a data directory others may read
                        java.nio.file.Files.setPosixFilePermissions(
                                copy, java.nio.file.Files.getPosixFilePermissions(source));
                    } else {
                        java.nio.file.Files.copy(source, copy, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            }
            postgres = builder(port, dataDir, durable, overrides).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Stops the server and waits until its postmaster has exited (it deletes postmaster.pid last, which is what
     * {@code pg_ctl -w} waits for): zonky gives pg_ctl five seconds, and a durable server's shutdown checkpoint can take
     * longer, so deleting right after it raced with the server still writing. A throw-away data directory is deleted
     * once the server is gone, and left in place (with a warning) if it is not.
     */
    @Override
    public synchronized void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!awaitStopped(Duration.ofSeconds(60))) {
            log.warn("PostgreSQL in {} did not stop within 60 s; its data directory is left in place", dataDir);
        } else if (throwAway) {
            ThrowAwayDirectory.delete(dataDir);
        }
    }

    /** @return whether postmaster.pid is gone: the postmaster removes it as the last step of its exit */
    private boolean awaitStopped(Duration timeout) {
        return await(() -> !java.nio.file.Files.exists(dataDir.resolve("postmaster.pid")), timeout);
    }

    /** @return whether {@code done} came true within {@code timeout} (polled every 10 ms) */
    private static boolean await(java.util.function.BooleanSupplier done, Duration timeout) {
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
