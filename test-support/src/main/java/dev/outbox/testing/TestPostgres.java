package dev.outbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.outbox.local.Postgres;
import dev.outbox.local.PostgresServer;

/**
 * An embedded PostgreSQL ({@link PostgresServer}) that a test owns and may hurt: crash it as
 * {@code pg_ctl -m immediate} does, SIGKILL its postmaster as a dying machine would, or copy it as a base backup.
 * Its data directory is thrown away when it closes, so a run of the tests leaves no clusters behind.
 */
public final class TestPostgres implements Postgres {

    private final int port;
    private final Path dataDir;
    private final boolean durable;
    private final Map<String, String> overrides;
    private volatile PostgresServer server;

    private TestPostgres(int port, Path dataDir, boolean durable, Map<String, String> overrides) {
        this.port = port;
        this.dataDir = dataDir;
        this.durable = durable;
        this.overrides = overrides;
        try {
            this.server = PostgresServer.start(port, dataDir, durable, overrides);
        } catch (RuntimeException e) {
            ThrowAwayDirectory.delete(dataDir);
            throw e;
        }
    }

    /**
     * Whether the tests run PostgreSQL durable ({@code -Dpostgres.durable=true}): the benchmark and soak commands
     * measure with fsync, full-page writes and synchronous commits on, as users run it; the test suite trades
     * crash-of-the-OS safety for speed.
     */
    public static boolean durableRequested() {
        return Boolean.getBoolean("postgres.durable");
    }

    /** A server on a free port and a fresh throw-away data directory. */
    public static TestPostgres start(boolean durable) {
        return start(durable, Map.of());
    }

    /** As {@link #start(boolean)}, with server settings overridden (e.g. {@code wal_level=replica}). */
    public static TestPostgres start(boolean durable, Map<String, String> overrides) {
        return new TestPostgres(Ports.free(), ThrowAwayDirectory.create("pg-data"), durable, overrides);
    }

    /** A server on a free port over a cluster already in {@code dataDir} (a copy), deleted when it closes. */
    static TestPostgres startOn(Path dataDir) {
        return new TestPostgres(Ports.free(), dataDir, false, Map.of());
    }

    @Override
    public String host() {
        return server.host();
    }

    @Override
    public int port() {
        return port;
    }

    /**
     * Crashes the server the way {@code pg_ctl -m immediate stop} does, by sending the postmaster SIGQUIT (no
     * checkpoint; crash recovery on the way back up), then starts it again with the same data directory, settings
     * and port. Every client connection, replication included, is cut.
     */
    public synchronized void restartImmediately() {
        long pid = postmasterPid();
        signal("QUIT", pid);
        ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
        Ports.awaitClosed(port, Duration.ofSeconds(30));
        server.stop();
        server = PostgresServer.start(port, dataDir, durable, overrides);
    }

    /** The postmaster's process id, from postmaster.pid. */
    public long postmasterPid() {
        try {
            return Long.parseLong(
                    Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
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
    public synchronized Instant killPostmaster() {
        long pid = postmasterPid();
        List<Path> leftBehind = filesLeftByAKill();
        signal("KILL", pid);
        Instant killed = Instant.now();
        // polled: the postmaster is not this JVM's child (pg_ctl started it), and onExit() polls slowly for those
        if (!PostgresServer.await(
                () -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), Duration.ofSeconds(30))) {
            throw new IllegalStateException("the postmaster " + pid + " survived SIGKILL");
        }
        Ports.awaitClosed(port, Duration.ofSeconds(30));
        try {
            // what a postmaster removes as it exits and a killed one cannot (stop() waits for the pid file to go)
            for (Path file : leftBehind) {
                Files.deleteIfExists(file);
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
        if (!server.stop()) {
            throw new IllegalStateException("PostgreSQL did not stop within 60 s; its directory cannot be copied");
        }
        Ports.awaitClosed(port, Duration.ofSeconds(30));
        try (Stream<Path> files = Files.walk(dataDir)) {
            Files.createDirectories(target);
            for (Path source : (Iterable<Path>) files::iterator) {
                Path relative = dataDir.relativize(source);
                String first =
                        relative.getNameCount() == 0 ? "" : relative.getName(0).toString();
                if (first.equals("postmaster.pid")
                        || first.equals("postmaster.opts")
                        || first.equals("epg-lock")
                        || (first.equals("pg_replslot") && relative.getNameCount() > 1)) {
                    continue;
                }
                Path copy = target.resolve(relative.toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(copy);
                    // PostgreSQL refuses a data directory others may read
                    Files.setPosixFilePermissions(copy, Files.getPosixFilePermissions(source));
                } else {
                    Files.copy(source, copy, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server = PostgresServer.start(port, dataDir, durable, overrides);
    }

    /**
     * Stops the server; its data directory is deleted once the postmaster is gone, and left in place (with the
     * server's warning) if it is not.
     */
    @Override
    public synchronized void close() {
        if (server.stop()) {
            ThrowAwayDirectory.delete(dataDir);
        }
    }

    /**
     * postmaster.pid and the Unix socket with its lock file, whose directory and port are the file's fifth and fourth
     * lines (PostgreSQL's own layout).
     */
    private List<Path> filesLeftByAKill() {
        try {
            Path pidFile = dataDir.resolve("postmaster.pid");
            List<String> lines = Files.readAllLines(pidFile);
            List<Path> files = new ArrayList<>(List.of(pidFile));
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

    private static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("could not send SIG" + signal + " to the postmaster " + pid);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
