package dev.outbox.relay.outbox;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import dev.outbox.testing.SharedInfra;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim floor (V4, V5), on a real PostgreSQL: claims and counts read from it on, and it never passes a row that is
 * or may become pending. Rows here are published by a lease owner's marks; the stream's horizon has its own tests
 * (StreamHorizonIntegrationTests).
 */
class OutboxClaimFloorIntegrationTests {

    private static final UUID WORKER = UUID.randomUUID();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String database = OutboxRows.migratedDatabase();
    private final DataSource dataSource = OutboxRows.dataSource(database);
    private final JdbcClient jdbc = JdbcClient.create(dataSource);
    private final Outbox outbox = new Outbox(jdbc);

    @Test
    void aRowCommittedAfterLaterRowsWerePublishedIsStillClaimed() throws Exception {
        OutboxEvent late = OutboxRows.event(UUID.randomUUID(), 1, OutboxRows.payload(UUID.randomUUID(), 1, "1.00"));
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        CompletableFuture<Void> lateTransaction =
                CompletableFuture.runAsync(() -> new TransactionTemplate(new DataSourceTransactionManager(dataSource))
                        .executeWithoutResult(tx -> {
                            OutboxRows.write(dataSource, List.of(late));
                            written.countDown();
                            await(commit);
                        }));
        assertThat(written.await(30, TimeUnit.SECONDS)).isTrue();

        // rows of later transactions commit, are claimed and published, and the floor is raised past them
        List<OutboxEvent> meanwhile = OutboxRows.insert(database, 5, 1);
        List<OutboxRow> first = claim();
        assertThat(first).extracting(OutboxRow::id).containsExactlyInAnyOrderElementsOf(ids(meanwhile));
        assertThat(outbox.markPublished(first.stream().map(OutboxRow::id).toList(), WORKER))
                .isEqualTo(5);
        assertThat(outbox.backlog().pending()).isZero();
        assertThat(claim()).isEmpty();

        commit.countDown();
        lateTransaction.get(30, TimeUnit.SECONDS);

        assertTheOnlyReadyRowIsClaimed(late.id());
    }

    @Test
    void aRequeuedDeadLetterIsClaimedAgainAfterTheFloorPassedIt() {
        List<OutboxEvent> dead = OutboxRows.insert(database, 1, 1);
        assertThat(claim()).hasSize(1);
        outbox.deadLetter(dead.get(0).id(), new IllegalStateException("rejected"));
        publishAll(OutboxRows.insert(database, 3, 1));
        assertThat(outbox.backlog().pending()).isZero();
        assertThat(floor()).isGreaterThan(readyXid(dead.get(0).id()));

        assertThat(outbox.requeue(DeadLetter.Selection.one(dead.get(0).id()), null, "operator")
                        .requeued())
                .isEqualTo(1);

        assertTheOnlyReadyRowIsClaimed(dead.get(0).id());
    }

    @Test
    void aRowWaitingForItsRetryHoldsTheFloorOnlyFromItsRetryOn() {
        List<OutboxEvent> failing = OutboxRows.insert(database, 1, 1);
        UUID id = failing.get(0).id();
        long inserted = readyXid(id);
        assertThat(claim()).hasSize(1);
        publishAll(OutboxRows.insert(database, 3, 1));
        assertThat(outbox.backlog().pending()).isEqualTo(1);
        assertThat(floor()).isEqualTo(inserted);

        assertThat(outbox.scheduleRetry(id, WORKER, Duration.ZERO, "broker unavailable", 12))
                .contains(false);
        OutboxRows.insert(database, 3, 1);

        assertThat(outbox.backlog().pending()).isEqualTo(4);
        assertThat(floor()).isGreaterThan(inserted).isEqualTo(readyXid(id));
        assertThat(claim()).extracting(OutboxRow::id).contains(id).hasSize(4);
    }

    /** Test arrangement as an operator would type it (docs/operations.md): not a statement of the relay. */
    @Test
    void aRowAnOperatorMarksUnpublishedAgainIsClaimedAgain() {
        List<OutboxEvent> events = OutboxRows.insert(database, 3, 1);
        publishAll(events);
        assertThat(outbox.backlog().pending()).isZero();
        assertThat(floor()).isGreaterThan(readyXid(events.get(1).id()));

        jdbc.sql("UPDATE outbox_messages SET published_at = NULL WHERE id = :id")
                .param("id", events.get(1).id())
                .update();

        assertTheOnlyReadyRowIsClaimed(events.get(1).id());
    }

    /** A logical copy or a restore carries outbox_claim_floor to a cluster whose transaction counter is behind it. */
    @Test
    void aFloorFromAnotherClusterStartsOver() {
        jdbc.sql("UPDATE outbox_claim_floor SET ready_xid = 9000000000000").update();
        List<OutboxEvent> events = OutboxRows.insert(database, 3, 1);

        assertThat(outbox.backlog().pending()).isEqualTo(3);
        assertThat(floor()).isLessThanOrEqualTo(readyXid(events.get(0).id()));
        assertThat(claim()).extracting(OutboxRow::id).containsExactlyInAnyOrderElementsOf(ids(events));
    }

    @Test
    void rowsWrittenBeforeTheFloorExistedArePublishedAndTheRestAreNotRead() {
        String old = SharedInfra.freshDatabase("payments");
        String url = SharedInfra.postgres().jdbcUrl(old);
        Flyway.configure()
                .dataSource(url, LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password())
                .locations("classpath:db/payments")
                .target("3")
                .load()
                .migrate();
        List<OutboxEvent> published = OutboxRows.insert(old, 4, 1);
        List<OutboxEvent> pending = OutboxRows.insert(old, 2, 1);
        JdbcClient oldJdbc = JdbcClient.create(OutboxRows.dataSource(old));
        oldJdbc.sql("UPDATE outbox_messages SET published_at = now() WHERE id = ANY(CAST(:ids AS uuid[]))")
                .param("ids", ids(published).toArray(UUID[]::new))
                .update();

        OutboxRows.migrate(url, LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());

        Outbox migrated = new Outbox(oldJdbc);
        Outbox.Backlog backlog = migrated.backlog();
        assertThat(backlog.pending()).isEqualTo(2);
        assertThat(backlog.pastFloor())
                .as("the published rows are behind the floor")
                .isEqualTo(2);
        assertThat(migrated.claim(WORKER, 100, LEASE, Duration.ZERO, false))
                .extracting(OutboxRow::id)
                .containsExactlyInAnyOrderElementsOf(ids(pending));
    }

    @Test
    void anIdleOutboxDoesNotWriteTheFloor() {
        publishAll(OutboxRows.insert(database, 3, 1));
        outbox.backlog();
        String version = floorVersion();

        for (int i = 0; i < 5; i++) {
            assertThat(claim()).isEmpty();
            assertThat(outbox.backlog().pending()).isZero();
        }

        assertThat(floorVersion()).isEqualTo(version);
        assertThat(outbox.backlog().pastFloor())
                .as("nothing left for a claim to read")
                .isZero();
        List<OutboxEvent> next = OutboxRows.insert(database, 1, 1);
        assertThat(outbox.backlog().pending()).isEqualTo(1);
        assertThat(claim()).extracting(OutboxRow::id).containsExactlyElementsOf(ids(next));
    }

    /** The backlog counts one row and a claim returns it: the floor did not pass it for good. */
    private void assertTheOnlyReadyRowIsClaimed(UUID id) {
        assertThat(outbox.backlog().pending()).isEqualTo(1);
        assertThat(claim()).extracting(OutboxRow::id).containsExactly(id);
    }

    private List<OutboxRow> claim() {
        return outbox.claim(WORKER, 100, LEASE, Duration.ZERO, false);
    }

    /** Claims the rows and marks them as their lease owner: they keep their ready_xid. */
    private void publishAll(List<OutboxEvent> events) {
        List<OutboxRow> claimed = claim();
        assertThat(claimed).extracting(OutboxRow::id).containsAll(ids(events));
        assertThat(outbox.markPublished(ids(events), WORKER)).isEqualTo(events.size());
    }

    private long floor() {
        return jdbc.sql("SELECT ready_xid FROM outbox_claim_floor")
                .query(Long.class)
                .single();
    }

    /** The transaction that last wrote the floor row. */
    private String floorVersion() {
        return jdbc.sql("SELECT xmin::text FROM outbox_claim_floor")
                .query(String.class)
                .single();
    }

    private long readyXid(UUID id) {
        return jdbc.sql("SELECT ready_xid FROM outbox_messages WHERE id = :id")
                .param("id", id)
                .query(Long.class)
                .single();
    }

    private static List<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).toList();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the transaction");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
