package dev.outbox.relay.cdc;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;

import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.jdbc.Writes;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.payments.outbox.OutboxWriter;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.outbox.DeadLetter;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.outbox.OutboxRow;
import dev.outbox.testing.SharedInfra;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stream's horizon (V5) on a real PostgreSQL, without a stream: what a stored horizon covers, and what it must never
 * count as published. A horizon is stored here as the relay stores it once Kafka acknowledged everything before its
 * message (the message's position stands in as the WAL position now); the CDC tests show the stream doing it.
 */
class StreamHorizonIntegrationTests {

    private static final UUID WORKER = UUID.randomUUID();

    private final String database = OutboxRows.migratedDatabase();
    private final DataSource dataSource = OutboxRows.dataSource(database);
    private final JdbcClient jdbc = JdbcClient.create(dataSource);
    private final Outbox outbox = new Outbox(jdbc);
    private final StreamHorizons horizons =
            new StreamHorizons(jdbc, outbox, new DataSourceTransactionManager(dataSource));
    private final String slot = "horizon_" + Long.toHexString(System.nanoTime());

    @AfterEach
    void dropSlots() {
        jdbc.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = "
                        + "current_database()")
                .query()
                .listOfRows();
    }

    @Test
    void rowsTheStoredHorizonSeesArePublishedAndLaterOnesArePending() {
        StreamHorizons.Prepared prepared = horizons.prepare(slot);
        assertThat(prepared.slotCreated()).isTrue();
        assertThat(prepared.begun()).isTrue();
        List<OutboxEvent> seen = OutboxRows.insert(database, 5, 1);

        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        List<OutboxEvent> later = OutboxRows.insert(database, 3, 1);

        assertThat(published(seen)).as("seen by the horizon").containsOnly(true);
        assertThat(published(later)).as("after the horizon").containsOnly(false);
        assertThat(outbox.backlog().pending()).isEqualTo(3);
        assertThat(updatesOfTheOutbox())
                .as("the stream writes nothing to the rows it covers")
                .isZero();
        assertThat(claim()).extracting(OutboxRow::id).containsExactlyInAnyOrderElementsOf(ids(later));
    }

    /** Negative: a slot registered but without a horizon covers nothing after its start; the net publishes it once. */
    @Test
    void aRowOfASlotThatHasNotStoredAHorizonYetIsPendingAndClaimedOnce() {
        horizons.prepare(slot);
        List<OutboxEvent> events = OutboxRows.insert(database, 2, 1);

        assertThat(published(events)).containsOnly(false);
        assertTheRowsAreClaimedOnceAndPublished(events);
    }

    /** Negative: a requeue is an update no slot streams; the horizon after it must not count the row. */
    @Test
    void aRequeuedRowIsNotCoveredByALaterHorizonAndIsClaimedOnce() {
        horizons.prepare(slot);
        List<OutboxEvent> events = OutboxRows.insert(database, 1, 1);
        outbox.deadLetter(events.get(0).id(), new IllegalStateException("rejected"));
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(outbox.requeue(DeadLetter.Selection.one(events.get(0).id()), null, "operator")
                        .requeued())
                .isEqualTo(1);

        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);

        assertThat(published(events)).containsOnly(false);
        assertTheRowsAreClaimedOnceAndPublished(events);
    }

    /** Negative: a retry's schedule is an update no slot streams; the horizon after it must not count the row. */
    @Test
    void aRetriedRowIsNotCoveredByALaterHorizonAndIsClaimedOnce() {
        horizons.prepare(slot);
        List<OutboxEvent> events = OutboxRows.insert(database, 1, 1);
        assertThat(claim()).hasSize(1);
        assertThat(outbox.scheduleRetry(events.get(0).id(), WORKER, Duration.ZERO, "broker unavailable", 12))
                .contains(false);

        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);

        assertThat(published(events)).containsOnly(false);
        assertTheRowsAreClaimedOnceAndPublished(events);
    }

    /**
     * Negative: rows committed while the slot was gone (dropped while the relay was down) were never streamed; the
     * recreated slot's horizon must not count them, however far it moves. What the old horizon covered stays covered.
     */
    @Test
    void aRowCommittedBeforeARecreatedSlotIsLeftToTheSafetyNet() {
        horizons.prepare(slot);
        List<OutboxEvent> covered = OutboxRows.insert(database, 3, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        dropSlot(slot);
        List<OutboxEvent> missed = OutboxRows.insert(database, 2, 1);

        StreamHorizons.Prepared prepared = horizons.prepare(slot);
        assertThat(prepared.slotCreated()).isTrue();
        assertThat(prepared.begun()).isTrue();
        assertThat(prepared.leftToSafetyNet()).isEqualTo(2);
        List<OutboxEvent> streamed = OutboxRows.insert(database, 1, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);

        assertThat(published(covered)).containsOnly(true);
        assertThat(published(streamed)).containsOnly(true);
        assertThat(published(missed)).containsOnly(false);
        assertTheRowsAreClaimedOnceAndPublished(missed);
    }

    /**
     * A slot dropped and created again behind the relay's back (the engine creates a missing slot itself) confirms
     * ahead of the stored horizon: storing refuses, and the next prepare begins the horizon again, leaving what the new
     * slot may have missed to the safety net.
     */
    @Test
    void aSlotCreatedAgainBehindTheRelaysBackIsNotTheSlotOfItsHorizon() {
        horizons.prepare(slot);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        dropSlot(slot);
        List<OutboxEvent> missed = OutboxRows.insert(database, 2, 1);
        jdbc.sql("SELECT pg_create_logical_replication_slot(:slot, 'pgoutput')")
                .param("slot", slot)
                .query()
                .listOfRows();

        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.ANOTHER_SLOT);
        StreamHorizons.Prepared prepared = horizons.prepare(slot);
        assertThat(prepared.slotCreated()).isFalse();
        assertThat(prepared.begun()).isTrue();
        assertThat(prepared.leftToSafetyNet()).isEqualTo(2);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(published(missed)).containsOnly(false);
    }

    @Test
    void aHorizonBehindTheStoredOneChangesNothing() {
        horizons.prepare(slot);
        String oldSnapshot = snapshot();
        String oldLsn = lsn();
        List<OutboxEvent> events = OutboxRows.insert(database, 2, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);

        assertThat(horizons.store(slot, oldSnapshot, oldLsn)).isEqualTo(StreamHorizons.Stored.BEHIND);

        assertThat(published(events)).containsOnly(true);
    }

    /** A logical copy carries the horizon to another cluster, whose transactions it knows nothing of. */
    @Test
    void aHorizonOfAnotherClusterCoversNothing() {
        horizons.prepare(slot);
        List<OutboxEvent> events = OutboxRows.insert(database, 2, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(published(events)).containsOnly(true);

        jdbc.sql("UPDATE outbox_stream_horizon SET system_identifier = system_identifier + 1")
                .update();

        assertThat(published(events)).containsOnly(false);
    }

    /** A horizon ahead of every transaction this cluster has begun comes from elsewhere too. */
    @Test
    void aHorizonAheadOfThisClusterCoversNothing() {
        horizons.prepare(slot);
        List<OutboxEvent> events = OutboxRows.insert(database, 2, 1);
        jdbc.sql("UPDATE outbox_stream_horizon SET horizon = CAST('9000000000000:9000000000000:' AS pg_snapshot)")
                .update();

        assertThat(published(events)).containsOnly(false);
    }

    /** Two relays on row-filtered slots: a row is covered only once every slot's horizon sees it. */
    @Test
    void withTwoSlotsARowIsCoveredOnlyWhenBothHorizonsSeeIt() {
        String other = slot + "_b";
        horizons.prepare(slot);
        horizons.prepare(other);
        List<OutboxEvent> events = OutboxRows.insert(database, 2, 1);

        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(published(events)).as("one slot's horizon").containsOnly(false);
        assertThat(storeNow(other)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(published(events)).as("both horizons").containsOnly(true);
    }

    /**
     * What the safety net claims beside a stream that delivers its slot: only what that stream will not deliver. Not
     * the rows ahead of the slot's stored horizon (the stream's, however far behind it is), but a row no slot streams
     * (an operator's republish) and the rows the slot's horizon passed that another slot's horizon has not. Without a
     * delivering stream, a claim takes every pending row.
     */
    @Test
    void besideADeliveringStreamTheNetClaimsOnlyWhatThatStreamWillNotDeliver() {
        String other = slot + "_b";
        horizons.prepare(slot);
        horizons.prepare(other);
        List<OutboxEvent> passed = OutboxRows.insert(database, 2, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        List<OutboxEvent> ahead = OutboxRows.insert(database, 3, 1);
        List<OutboxEvent> republished = OutboxRows.insert(database, 1, 1);
        set(jdbc, republished, "stream_coverable = false");
        assertThat(published(passed)).as("seen by one slot's horizon only").containsOnly(false);

        List<OutboxRow> besideTheStream =
                outbox.claimBehindHorizon(WORKER, 100, Duration.ofSeconds(30), Duration.ZERO, slot);

        assertThat(besideTheStream)
                .extracting(OutboxRow::id)
                .containsExactlyInAnyOrderElementsOf(Stream.concat(ids(passed).stream(), ids(republished).stream())
                        .toList());
        assertThat(claim()).extracting(OutboxRow::id).containsExactlyInAnyOrderElementsOf(ids(ahead));
    }

    /** A prepared transaction's rows are invisible to every horizon until COMMIT PREPARED, and streamed then. */
    @Test
    void aPreparedTransactionsRowIsCoveredOnlyByAHorizonAfterItsCommit() throws Exception {
        horizons.prepare(slot);
        String gid = "outbox_" + Long.toHexString(System.nanoTime());
        OutboxEvent held = OutboxRows.event(UUID.randomUUID(), 1, OutboxRows.payload(UUID.randomUUID(), 1, "1.00"));
        try (Connection c = SharedInfra.postgres().connect(database)) {
            SingleConnectionDataSource one = new SingleConnectionDataSource(c, true);
            new TransactionTemplate(new DataSourceTransactionManager(one)).executeWithoutResult(tx -> {
                new Writes(JdbcClient.create(one)).send(List.of(new OutboxWriter().insert(held)));
                JdbcClient.create(one).sql("PREPARE TRANSACTION '" + gid + "'").update();
            });
        }
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        jdbc.sql("COMMIT PREPARED '" + gid + "'").update();

        assertThat(published(List.of(held)))
                .as("not visible in the horizon taken while prepared")
                .containsOnly(false);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        assertThat(published(List.of(held))).containsOnly(true);
    }

    /** Old rows the horizon published are deleted by retention like rows a lease owner marked. */
    @Test
    void retentionDeletesOldRowsTheHorizonPublished() {
        horizons.prepare(slot);
        List<OutboxEvent> old = OutboxRows.insert(database, 3, 1);
        assertThat(storeNow(slot)).isEqualTo(StreamHorizons.Stored.STORED);
        List<OutboxEvent> notCovered = OutboxRows.insert(database, 2, 1);
        jdbc.sql("UPDATE outbox_messages SET occurred_at = now() - interval '8 days'")
                .update();

        int deleted = outbox.deletePublishedOlderThan(Duration.ofDays(7), 500);

        assertThat(deleted).isEqualTo(old.size());
        assertThat(jdbc.sql("SELECT id FROM outbox_messages").query(UUID.class).list())
                .containsExactlyInAnyOrderElementsOf(ids(notCovered));
    }

    /**
     * An outbox with rows in every state, migrated from V4 while a pre-V5 relay ran: rows it marked stay published,
     * dead letters stay dead, and the pending, leased and requeued ones are published once by the safety net (the first
     * horizon's prepare leaves them to it): a drained outbox republishes nothing.
     */
    @Test
    void anOutboxMigratedWithRowsInEveryStateRepublishesOnlyWhatWasPending() {
        String old = SharedInfra.freshDatabase("payments");
        String url = SharedInfra.postgres().jdbcUrl(old);
        Flyway.configure()
                .dataSource(url, LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password())
                .locations("classpath:db/payments")
                .target("4")
                .load()
                .migrate();
        JdbcClient oldJdbc = JdbcClient.create(OutboxRows.dataSource(old));
        List<OutboxEvent> marked = OutboxRows.insert(old, 4, 1);
        List<OutboxEvent> pending = OutboxRows.insert(old, 2, 1);
        List<OutboxEvent> leased = OutboxRows.insert(old, 1, 1);
        List<OutboxEvent> dead = OutboxRows.insert(old, 1, 1);
        List<OutboxEvent> requeued = OutboxRows.insert(old, 1, 1);
        set(oldJdbc, marked, "published_at = now()");
        set(oldJdbc, leased, "lock_id = gen_random_uuid(), locked_until = now() - interval '1 minute', attempts = 1");
        set(oldJdbc, dead, "dead_lettered_at = now(), last_error = 'rejected'");
        set(oldJdbc, requeued, "dead_lettered_at = now()");
        set(oldJdbc, requeued, "dead_lettered_at = NULL");

        OutboxRows.migrate(url, LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
        Outbox migrated = new Outbox(oldJdbc);
        DataSource oldDataSource = OutboxRows.dataSource(old);
        StreamHorizons oldHorizons =
                new StreamHorizons(oldJdbc, migrated, new DataSourceTransactionManager(oldDataSource));
        try {
            assertThat(oldHorizons.prepare(slot).leftToSafetyNet()).isEqualTo(4);
            assertThat(oldHorizons.store(slot, snapshot(oldJdbc), lsn(oldJdbc)))
                    .isEqualTo(StreamHorizons.Stored.STORED);

            assertThat(migrated.backlog().pending()).isEqualTo(4);
            List<OutboxRow> claimed = migrated.claim(WORKER, 100, Duration.ofSeconds(30), Duration.ZERO, false);
            assertThat(claimed)
                    .extracting(OutboxRow::id)
                    .containsExactlyInAnyOrderElementsOf(
                            ids(List.of(pending.get(0), pending.get(1), leased.get(0), requeued.get(0))));
            assertThat(migrated.markPublished(
                            claimed.stream().map(OutboxRow::id).toList(), WORKER))
                    .isEqualTo(4);
            assertThat(migrated.backlog().pending()).isZero();
            assertThat(migrated.claim(WORKER, 100, Duration.ofSeconds(30), Duration.ZERO, false))
                    .isEmpty();
            assertThat(migrated.backlog().deadLettered()).isEqualTo(1);
        } finally {
            oldJdbc.sql("SELECT pg_drop_replication_slot(:slot)")
                    .param("slot", slot)
                    .query()
                    .listOfRows();
        }
    }

    /**
     * V6's fast paths (below every horizon's xmin: covered; at or beyond one's xmax: not) against V5's definition, for
     * every transaction id in and around synthetic horizons (snapshots as PostgreSQL writes them: xmin is the oldest
     * running transaction): one slot or two, a horizon not stored yet, a horizon older
     * than its since, transactions running in either snapshot.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no horizon stored yet          | 12:20:12,15    |                |             |",
                "one horizon                    | 12:20:12,15    | 33:40:33,35    |             |",
                "a horizon older than its since | 33:40:33       | 12:20:12       |             |",
                "two slots                      | 5:5:           | 33:40:33,35    | 21:25:21,23 | 29:45:29,44",
                "two slots, one not stored yet  | 5:5:           | 33:40:33,35    | 21:25:21,23 |",
                "running in both snapshots      | 12:50:12,20,45 | 12:60:12,55,58 |             |",
            })
    void theFastPathsAgreeWithTheDefinitionOnEveryTransaction(
            String name, String since1, String horizon1, String since2, String horizon2) {
        OutboxRows.insert(database, 71, 1);
        jdbc.sql("""
                        UPDATE outbox_messages m SET ready_xid = n.xid
                          FROM (SELECT id, 2 + row_number() OVER (ORDER BY id) AS xid FROM outbox_messages) n
                         WHERE n.id = m.id
                        """).update();
        String horizon = """
                INSERT INTO outbox_stream_horizon (slot_name, system_identifier, since, horizon, horizon_lsn)
                VALUES (:slot, (SELECT system_identifier FROM pg_control_system()), CAST(:since AS pg_snapshot),
                        CAST(:horizon AS pg_snapshot), '0/0')
                """;
        jdbc.sql(horizon)
                .param("slot", "a")
                .param("since", since1)
                .param("horizon", horizon1)
                .update();
        if (since2 != null) {
            jdbc.sql(horizon)
                    .param("slot", "b")
                    .param("since", since2)
                    .param("horizon", horizon2)
                    .update();
        }

        var counts = jdbc.sql("""
                        SELECT count(*) FILTER (WHERE d.published) AS published,
                               count(*) FILTER (WHERE d.published IS DISTINCT FROM
                                   NOT EXISTS (SELECT FROM outbox_stream_horizons() h
                                                WHERE NOT (pg_visible_in_snapshot(d.ready_xid::text::xid8, h.since)
                                                           OR COALESCE(pg_visible_in_snapshot(
                                                                   d.ready_xid::text::xid8, h.horizon), false))))
                                   AS differ
                          FROM outbox_delivery d
                        """).query().singleRow();
        assertThat(counts.get("differ")).as(name).isEqualTo(0L);
        assertThat((Long) counts.get("published")).as(name).isBetween(1L, 70L);
    }

    /** Claimed once by a lease owner, marked, and then nothing is left: published exactly once. */
    private void assertTheRowsAreClaimedOnceAndPublished(List<OutboxEvent> events) {
        assertThat(outbox.backlog().pending()).isEqualTo(events.size());
        List<OutboxRow> claimed = claim();
        assertThat(claimed).extracting(OutboxRow::id).containsExactlyInAnyOrderElementsOf(ids(events));
        assertThat(outbox.markPublished(ids(events), WORKER)).isEqualTo(events.size());
        assertThat(storeNow(slot)).isNotEqualTo(StreamHorizons.Stored.ANOTHER_SLOT);
        assertThat(claim()).isEmpty();
        assertThat(outbox.backlog().pending()).isZero();
        assertThat(published(events)).containsOnly(true);
    }

    private StreamHorizons.Stored storeNow(String slot) {
        return horizons.store(slot, snapshot(), lsn());
    }

    private String snapshot() {
        return snapshot(jdbc);
    }

    private String lsn() {
        return lsn(jdbc);
    }

    private static String snapshot(JdbcClient jdbc) {
        return jdbc.sql("SELECT pg_current_snapshot()::text")
                .query(String.class)
                .single();
    }

    /** Where a message emitted now would be: past the slot's confirmed position. */
    private static String lsn(JdbcClient jdbc) {
        return jdbc.sql("SELECT pg_current_wal_insert_lsn()::text")
                .query(String.class)
                .single();
    }

    private List<OutboxRow> claim() {
        return outbox.claim(WORKER, 100, Duration.ofSeconds(30), Duration.ZERO, false);
    }

    private List<Boolean> published(List<OutboxEvent> events) {
        return jdbc.sql("SELECT published FROM outbox_delivery WHERE id = ANY(CAST(:ids AS uuid[]))")
                .param("ids", ids(events).toArray(UUID[]::new))
                .query(Boolean.class)
                .list();
    }

    /** Updates of outbox rows since the database was made (each statement here ran on a backend that has exited). */
    private long updatesOfTheOutbox() {
        return jdbc.sql("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox_messages'")
                .query(Long.class)
                .single();
    }

    private void dropSlot(String name) {
        jdbc.sql("SELECT pg_drop_replication_slot(:slot)")
                .param("slot", name)
                .query()
                .listOfRows();
    }

    /** Test arrangement only: puts rows in a state a relay would have left them in. */
    private static void set(JdbcClient jdbc, List<OutboxEvent> events, String assignment) {
        jdbc.sql("UPDATE outbox_messages SET " + assignment + " WHERE id = ANY(CAST(:ids AS uuid[]))")
                .param("ids", ids(events).toArray(UUID[]::new))
                .update();
    }

    private static List<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).toList();
    }
}
