package dev.outbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import dev.outbox.local.LocalCredentials;

/**
 * A primary and a streaming standby, both real PostgreSQL from the embedded binaries, set up for logical
 * failover slots (PostgreSQL 17+):
 *
 * <ul>
 *   <li>the standby is a copy of the cleanly stopped primary ({@link TestPostgres#copyStoppedTo}) with
 *       {@code standby.signal}, {@code primary_conninfo} (with a dbname, which slot synchronization needs),
 *       {@code primary_slot_name} (a physical slot on the primary), {@code hot_standby_feedback=on} and
 *       {@code sync_replication_slots=on}, so its slot sync worker copies every failover slot of the primary;</li>
 *   <li>the primary lists the standby's slot in {@code synchronized_standby_slots}, so no logical WAL sender sends a
 *       change before the standby has flushed it (a relay can never be ahead of the standby), and, with
 *       {@code synchronous_standby_names}, acknowledges a commit only once the standby has flushed it, so no
 *       acknowledged payment is lost by a failover. Both are set on the running primary only: the standby, once
 *       promoted, has no standby of its own and must not wait for one.</li>
 * </ul>
 *
 * Clients reach "the primary" through {@link #jdbcUrl(String)}, a multi-host URL with
 * {@code targetServerType=primary}, and find the promoted standby after {@link #killPrimary()} and
 * {@link #promoteStandby()} without a configuration change.
 */
public final class ReplicatedPostgres implements AutoCloseable {

    /** The standby's physical slot on the primary, and its application_name. */
    public static final String STANDBY_SLOT = "standby_1";

    private final TestPostgres primary;
    private final TestPostgres standby;

    private ReplicatedPostgres(TestPostgres primary, TestPostgres standby) {
        this.primary = primary;
        this.standby = standby;
    }

    /**
     * Starts the primary, takes a base backup of it, starts the standby from it and waits until the standby streams;
     * then makes the standby's slot synchronized and the replication synchronous.
     *
     * @param synchronousCommit acknowledge commits only once the standby flushed them ({@code synchronous_standby_names})
     */
    public static ReplicatedPostgres start(boolean synchronousCommit) {
        return start(synchronousCommit, true);
    }

    /**
     * As {@link #start(boolean)}; with {@code syncSlots} false the standby does not synchronize slots (a standby
     * set up without {@code sync_replication_slots}, or one that never caught up with the slot): after a failover
     * the relay's slot is missing on the promoted standby.
     */
    public static ReplicatedPostgres start(boolean synchronousCommit, boolean syncSlots) {
        TestPostgres primary = TestPostgres.start(false);
        Path standbyDir = ThrowAwayDirectory.create("pg-standby");
        try {
            execute(primary, "SELECT pg_create_physical_replication_slot('" + STANDBY_SLOT + "')");
            primary.copyStoppedTo(standbyDir);
            Files.writeString(standbyDir.resolve("standby.signal"), "");
            Files.writeString(
                    standbyDir.resolve("postgresql.auto.conf"),
                    String.join(
                            "\n",
                            "# written by ReplicatedPostgres: a streaming standby that synchronizes failover slots",
                            "primary_conninfo = 'host=" + primary.host() + " port=" + primary.port() + " user="
                                    + LocalCredentials.POSTGRES.user() + " password="
                                    + LocalCredentials.POSTGRES.password()
                                    + " dbname=postgres application_name=" + STANDBY_SLOT + "'",
                            "primary_slot_name = '" + STANDBY_SLOT + "'",
                            "hot_standby_feedback = on",
                            "sync_replication_slots = " + (syncSlots ? "on" : "off"),
                            ""),
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            primary.close();
            ThrowAwayDirectory.delete(standbyDir);
            throw new UncheckedIOException(e);
        }
        // the standby's directory goes with it: deleted once it has stopped
        TestPostgres standby = TestPostgres.startOn(standbyDir);
        ReplicatedPostgres pair = new ReplicatedPostgres(primary, standby);
        try {
            pair.awaitStreaming(Duration.ofSeconds(60));
            execute(primary, "ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY_SLOT + "'");
            if (synchronousCommit) {
                execute(primary, "ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY_SLOT + "'");
            }
            execute(primary, "SELECT pg_reload_conf()");
        } catch (RuntimeException e) {
            pair.close();
            throw e;
        }
        return pair;
    }

    public TestPostgres primary() {
        return primary;
    }

    public TestPostgres standby() {
        return standby;
    }

    /** {@code host:port,host:port}: the primary first, then the standby. */
    public String hosts() {
        return primary.host() + ":" + primary.port() + "," + standby.host() + ":" + standby.port();
    }

    /** Whichever server is the primary now: a multi-host URL that skips a standby. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + hosts() + "/" + database + "?targetServerType=primary";
    }

    /** A superuser connection to whichever server is the primary now. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(
                jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
    }

    /** Creates a database on the primary (it reaches the standby through the WAL). */
    public ReplicatedPostgres createDatabase(String name) {
        SharedInfra.createDatabases(primary, name);
        return this;
    }

    /** Waits until the standby's WAL receiver streams from the primary. */
    public void awaitStreaming(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Connection c = primary.connect("postgres");
                    Statement s = c.createStatement();
                    var rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
                            + STANDBY_SLOT + "' AND state = 'streaming'")) {
                rs.next();
                if (rs.getLong(1) == 1) {
                    return;
                }
            } catch (SQLException e) {
                // not yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the standby never streamed from the primary");
            }
            sleep(200);
        }
    }

    /**
     * Whether the standby holds a synchronized, persistent, valid copy of the logical slot: the state in which a
     * failover keeps it. A newly synchronized slot stays temporary until the standby has caught up with the primary's
     * slot.
     */
    public boolean slotSynced(String slot) {
        try (Connection c = standby.connect("postgres");
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot
                        + "' AND synced AND NOT temporary AND invalidation_reason IS NULL")) {
            rs.next();
            return rs.getLong(1) == 1;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * SIGKILL to the primary's postmaster; it stays down.
     *
     * @return when the signal was delivered
     */
    public java.time.Instant killPrimary() {
        return primary.killPostmaster();
    }

    /**
     * SIGSTOP to the primary's WAL sender for the standby: from now on the standby receives nothing, so a
     * synchronous commit is written on the primary and waits there, unreplicated and unconfirmed. Only for a
     * primary about to be killed ({@link #killPausedWalSender()}).
     */
    public void pauseWalSender() {
        try (Connection c = primary.connect("postgres");
                Statement s = c.createStatement();
                var rs = s.executeQuery(
                        "SELECT pid FROM pg_stat_replication WHERE application_name = '" + STANDBY_SLOT + "'")) {
            if (!rs.next()) {
                throw new IllegalStateException("the primary has no WAL sender for the standby");
            }
            pausedWalSender = rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not find the primary's WAL sender", e);
        }
        signal(pausedWalSender, "-STOP");
    }

    private volatile long pausedWalSender;

    /**
     * SIGKILL to the WAL sender paused by {@link #pauseWalSender()}: after {@link #killPrimary()} it is what is left
     * of the dead primary, and it must send nothing more (a machine that dies sends nothing after its death).
     */
    public void killPausedWalSender() {
        long pid = pausedWalSender;
        if (pid != 0) {
            pausedWalSender = 0;
            signal(pid, "-KILL");
            ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
        }
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, String.valueOf(pid)).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code pg_promote()}, waiting for the promotion to finish. */
    public void promoteStandby() {
        try (Connection c = standby.connect("postgres");
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT pg_promote(true, 60)")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new IllegalStateException("the standby did not finish its promotion within 60 s");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not promote the standby", e);
        }
    }

    private static void execute(TestPostgres server, String sql) {
        try (Connection c = server.connect("postgres");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        killPausedWalSender();
        try {
            standby.close();
        } finally {
            primary.close();
        }
    }
}
