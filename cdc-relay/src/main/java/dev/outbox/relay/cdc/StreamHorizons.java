package dev.outbox.relay.cdc;

import java.util.Optional;

import dev.outbox.relay.outbox.Outbox;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * How far each slot's stream got: outbox_stream_horizon (V5), the one owner of its rows in the relay. The stream
 * records a horizon, not what it sent: the snapshot a horizon message carried, once Kafka acknowledged everything before
 * that message in the WAL. A row whose insert the slot streams and whose transaction every slot's horizon sees is
 * published (the payments migrations' {@code outbox_delivery} view says so, for every reader).
 *
 * <p>A horizon only holds for the slot it was recorded on. Before a leader streams, {@link #prepare} makes sure the
 * slot exists (it creates a missing one itself) and is the slot the stored horizon is of: the relay hands the engine no
 * offset past its last stored horizon, so the slot of that horizon never confirms beyond the horizon's position, and a
 * slot found ahead of it is another one (recreated, or a standby's without the synchronized slot). Then the horizon
 * begins again: in one transaction, the rows that no horizon of the slot's covers yet and that the new slot may have
 * missed (committed before it began) are left to the safety net ({@link Outbox#leaveToSafetyNet}), and the slot's row
 * starts from a snapshot taken after the slot existed, with no horizon yet.
 */
final class StreamHorizons {

    /** The prefix of a slot's horizon messages: each relay stores only its own slot's. */
    static String prefix(String slot) {
        return "outbox-horizon:" + slot;
    }

    /** The slot as the relay's stream will find it, and whether its stored horizon is of it. */
    private static final String SLOT = """
            SELECT s.confirmed_flush_lsn IS NOT NULL
                   AND h.slot_name IS NOT NULL
                   AND s.confirmed_flush_lsn <= h.horizon_lsn AS continuous
              FROM pg_replication_slots s
              LEFT JOIN outbox_stream_horizons() h ON h.slot_name = s.slot_name
             WHERE s.slot_name = :slot AND s.database = current_database()
            """;

    /**
     * The slot, when PostgreSQL has removed WAL it still needed (wal_status lost: max_slot_wal_keep_size was passed
     * while no relay streamed). Nothing can stream from it again and Debezium never starts on it; the relay drops it
     * and creates it anew, as for a slot dropped while it was down.
     */
    private static final String LOST = """
            SELECT slot_name FROM pg_replication_slots
             WHERE slot_name = :slot AND database = current_database() AND NOT active AND wal_status = 'lost'
            """;

    private static final String DROP = "SELECT pg_drop_replication_slot(:slot)";

    /** PostgreSQL 17+: a failover slot, which standbys running sync_replication_slots keep a copy of. */
    private static final String CREATE_SLOT = """
            SELECT CASE WHEN current_setting('server_version_num')::int >= 170000
                        THEN (SELECT slot_name FROM pg_create_logical_replication_slot(
                                  :slot, 'pgoutput', false, false, true))
                        ELSE (SELECT slot_name FROM pg_create_logical_replication_slot(:slot, 'pgoutput')) END
            """;

    /**
     * Begins the slot's horizon from this transaction's snapshot (REPEATABLE READ: the snapshot the rows left to the
     * safety net were chosen in), at the slot's confirmed position, with no horizon stored yet.
     */
    private static final String BEGIN = """
            INSERT INTO outbox_stream_horizon (slot_name, system_identifier, since, horizon, horizon_lsn)
            SELECT s.slot_name, (SELECT system_identifier FROM pg_control_system()), pg_current_snapshot(), NULL,
                   COALESCE(s.confirmed_flush_lsn, pg_current_wal_lsn())
              FROM pg_replication_slots s
             WHERE s.slot_name = :slot AND s.database = current_database()
            ON CONFLICT (slot_name) DO UPDATE
               SET system_identifier = excluded.system_identifier, since = excluded.since, horizon = NULL,
                   horizon_lsn = excluded.horizon_lsn, stored_at = now()
            """;

    /**
     * Stores a horizon whose message is past the stored one, only while the slot has not confirmed beyond the stored
     * position (it is the slot the horizon is of). Answers whether it stored, and whether the slot is that one (read in
     * the statement's snapshot, before the update).
     */
    private static final String STORE = """
            WITH stored AS (
                UPDATE outbox_stream_horizon h
                   SET horizon = CAST(:snapshot AS pg_snapshot), horizon_lsn = CAST(:lsn AS pg_lsn), stored_at = now()
                 WHERE h.slot_name = :slot
                   AND h.horizon_lsn < CAST(:lsn AS pg_lsn)
                   AND (SELECT s.confirmed_flush_lsn FROM pg_replication_slots s WHERE s.slot_name = :slot)
                       <= h.horizon_lsn
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM stored) > 0 AS stored,
                   COALESCE((SELECT s.confirmed_flush_lsn <= h.horizon_lsn
                               FROM outbox_stream_horizon h, pg_replication_slots s
                              WHERE h.slot_name = :slot AND s.slot_name = :slot), false) AS continuous
            """;

    /** A non-transactional logical decoding message: WAL the stream reads in order, whatever else is written. */
    private static final String EMIT = "SELECT pg_logical_emit_message(false, :prefix, pg_current_snapshot()::text)";

    /** What storing a horizon found. */
    enum Stored {
        /** The horizon moved. */
        STORED,
        /** The message was at or before the stored horizon (a stream replaying after a restart): nothing to do. */
        BEHIND,
        /** The slot is ahead of the stored horizon: not the slot the horizon is of. The stream must stop. */
        ANOTHER_SLOT
    }

    /** What {@link #prepare} did. */
    record Prepared(boolean lostDropped, boolean slotCreated, boolean begun, int leftToSafetyNet) {}

    private final JdbcClient jdbc;
    private final Outbox outbox;
    private final TransactionTemplate repeatableRead;

    StreamHorizons(JdbcClient jdbc, Outbox outbox, PlatformTransactionManager transactions) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.repeatableRead = new TransactionTemplate(transactions);
        this.repeatableRead.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
    }

    /**
     * Before a leader streams {@code slot}: creates it if it is missing, and begins its horizon again unless the stored
     * one is of this very slot (see the class comment). Runs on the primary the relay's JDBC pool reaches, the server
     * the leader streams from.
     */
    Prepared prepare(String slot) {
        boolean lost = jdbc.sql(LOST)
                .param("slot", slot)
                .query(String.class)
                .optional()
                .isPresent();
        if (lost) {
            jdbc.sql(DROP).param("slot", slot).query((rs, n) -> n).single();
        }
        boolean created = false;
        Optional<Boolean> continuous = continuous(slot);
        if (continuous.isEmpty()) {
            jdbc.sql(CREATE_SLOT).param("slot", slot).query(String.class).single();
            created = true;
            continuous = continuous(slot);
        }
        if (continuous.orElse(false)) {
            return new Prepared(lost, created, false, 0);
        }
        Integer left = repeatableRead.execute(tx -> {
            int n = outbox.leaveToSafetyNet();
            jdbc.sql(BEGIN).param("slot", slot).update();
            return n;
        });
        return new Prepared(lost, created, true, left == null ? 0 : left);
    }

    private Optional<Boolean> continuous(String slot) {
        return jdbc.sql(SLOT).param("slot", slot).query(Boolean.class).optional();
    }

    /**
     * Stores {@code snapshot} as {@code slot}'s horizon: call only once Kafka acknowledged everything the stream
     * delivered before the message at {@code lsn}, and before handing the engine that message's offset.
     */
    Stored store(String slot, String snapshot, String lsn) {
        return jdbc.sql(STORE)
                .param("slot", slot)
                .param("snapshot", snapshot)
                .param("lsn", lsn)
                .query((rs, n) -> rs.getBoolean("stored")
                        ? Stored.STORED
                        : rs.getBoolean("continuous") ? Stored.BEHIND : Stored.ANOTHER_SLOT)
                .single();
    }

    /** Emits {@code slot}'s horizon message through {@code server}, the server its stream reads. */
    static void emit(JdbcClient server, String slot) {
        server.sql(EMIT).param("prefix", prefix(slot)).query(String.class).single();
    }
}
