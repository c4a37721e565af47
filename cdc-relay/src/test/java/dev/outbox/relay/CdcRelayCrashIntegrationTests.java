package dev.outbox.relay;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay is SIGKILLed mid-stream and restarted: every event reaches the topic (duplicates allowed, with the
 * same id), none is missing, and every row ends up published. Then two instances share one slot: only
 * one streams, and when it is killed the standby takes over; when it stops answering instead, the standby ends the
 * walsender it left holding the slot.
 */
class CdcRelayCrashIntegrationTests {

    /**
     * A writer commits payments without a pause from before the relay streams until after it is killed, so the kill
     * lands while events flow in, are streamed, sent and covered (waiting for a backlog to be half done races a fast
     * relay, which may finish it between two looks).
     */
    @Test
    void sigkillMidStreamThenRestartLosesNothing() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "crash" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());

        try (RelayProcess relay = new RelayProcess(env, suffix).c1Only().start();
                OutboxWriterThread writer = new OutboxWriterThread(OutboxRows.dataSource(database))) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            writer.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            RelayFixtures.count(database, "SELECT count(*) FROM outbox_delivery WHERE published") >= 300
                                    || writer.done());
            int writtenAtKill = writer.count();
            relay.kill();
            long publishedAtKill =
                    RelayFixtures.count(database, "SELECT count(*) FROM outbox_delivery WHERE published");
            // the writer goes on while the relay is down: the restart finds events it never saw
            await().atMost(Duration.ofSeconds(60)).until(() -> writer.count() >= writtenAtKill + 1000 || writer.done());
            List<OutboxEvent> inserted = writer.stop();
            relay.start();

            List<ConsumerRecord<String, String>> onTopic = RelayFixtures.assertTopicHoldsExactly(
                    SharedInfra.kafka().adminClientProperties(), topic, inserted, Duration.ofSeconds(120));
            System.out.printf(
                    "crash test: %d of %d written events published at the kill; %d events, %d records on the"
                            + " topic (%d duplicates)%n",
                    publishedAtKill, writtenAtKill, inserted.size(), onTopic.size(), onTopic.size() - inserted.size());
            // the restarted stream resends what no stored horizon covered, and its own horizons then cover everything
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> RelayFixtures.count(
                                    database,
                                    "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                            == 0);
        }
    }

    /**
     * The pipeline's worst moment: Kafka acknowledged events and the relay dies before it stored a horizon that covers
     * them. The slot's horizon row is locked, so the store waits (and with it the completer and the engine's offset)
     * while the batches in flight are acknowledged. After the restart the stream sends them again from the last
     * committed offset: the same events go out again with the same ids and keys, and the new stream's horizon covers
     * every row. Nothing is lost.
     */
    @Test
    void crashBetweenAcknowledgementAndHorizonRepublishesTheSameIds() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "ackhorizon" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        // the stream alone: the safety net would publish the rows no horizon covers
        env.put("RELAY_SAFETY_NET_GRACE", "1h");
        Map<String, Object> client = SharedInfra.kafka().adminClientProperties();

        try (RelayProcess relay = new RelayProcess(env, suffix).c1Only().start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            relay.kill();
            List<OutboxEvent> inserted = OutboxRows.insert(database, 200, 2);
            List<String> ids = OutboxRows.ids(inserted);

            List<ConsumerRecord<String, String>> firstRound;
            try (Connection locker = SharedInfra.postgres().connect(database)) {
                locker.setAutoCommit(false);
                try (var lock = locker.createStatement()) {
                    lock.execute("SELECT slot_name FROM outbox_stream_horizon FOR UPDATE");
                }
                relay.start();
                // events are acknowledged while the horizon waits; the topic stops growing
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> !TopicReader.toEnd(client, topic, Duration.ofSeconds(10))
                                .isEmpty());
                long[] last = {-1};
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofSeconds(2))
                        .until(() -> {
                            long now = TopicReader.toEnd(client, topic, Duration.ofSeconds(10))
                                    .size();
                            boolean settled = now == last[0];
                            last[0] = now;
                            return settled;
                        });
                relay.kill();
                firstRound = TopicReader.toEnd(client, topic, Duration.ofSeconds(10));
                // the dead relay's horizon UPDATE still waits server-side and would commit once the lock goes: end its
                // backend as the crash would have if it had come a moment earlier
                try (var s = locker.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND wait_event_type = 'Lock'");
                }
                locker.rollback();
            }
            Set<String> acknowledged = firstRound.stream().map(TopicReader::id).collect(Collectors.toSet());
            assertThat(acknowledged).as("acknowledged while the horizon waited").isNotEmpty();
            assertThat(ids).as("only written events").containsAll(acknowledged);
            assertThat(RelayFixtures.pending(database))
                    .as("killed after the acknowledgements, before a horizon covered them")
                    .isEqualTo(inserted.size());

            relay.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> RelayFixtures.pending(database) == 0);
            // horizons follow acknowledgements, so everything republished is on the topic by now
            List<ConsumerRecord<String, String>> onTopic = TopicReader.toEnd(client, topic, Duration.ofSeconds(30));
            Map<String, Long> copies =
                    onTopic.stream().collect(Collectors.groupingBy(TopicReader::id, Collectors.counting()));
            assertThat(copies.keySet()).as("nothing lost, nothing unknown").isEqualTo(new HashSet<>(ids));
            assertThat(acknowledged)
                    .as("acknowledged before the crash, published again after the restart with the same ids")
                    .allMatch(id -> copies.get(id) >= 2);
            System.out.printf(
                    "ack/horizon crash: %d events, %d acknowledged before the kill, %d records on the topic%n",
                    ids.size(), acknowledged.size(), onTopic.size());
            Map<String, String> firstKeys =
                    firstRound.stream().collect(Collectors.toMap(TopicReader::id, ConsumerRecord::key, (a, b) -> a));
            assertThat(onTopic.stream()
                            .filter(r -> firstKeys.containsKey(TopicReader.id(r)))
                            .filter(r -> !r.key().equals(firstKeys.get(TopicReader.id(r))))
                            .map(TopicReader::id)
                            .toList())
                    .as("a republished event keeps its key")
                    .isEmpty();
        }
    }

    @Test
    void onlyOneRelayStreamsAndTheStandbyTakesOverWhenItDies() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "pair" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> envA = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        Map<String, String> envB = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());

        try (RelayProcess a = new RelayProcess(envA, suffix + "-a").c1Only().start();
                RelayProcess b = new RelayProcess(envB, suffix + "-b").c1Only().start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> "leader".equals(a.role()) || "leader".equals(b.role()));
            RelayProcess leader = "leader".equals(a.role()) ? a : b;
            RelayProcess standby = leader == a ? b : a;
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            await().atMost(Duration.ofSeconds(30)).until(() -> "standby".equals(standby.role()));
            assertThat(standby.streaming()).isFalse();
            assertThat(RelayFixtures.count(database, "SELECT count(*) FROM pg_stat_replication"))
                    .isEqualTo(1);

            List<OutboxEvent> inserted = new ArrayList<>(OutboxRows.insert(database, 100, 1));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> RelayFixtures.count(
                                    database,
                                    "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                            == 0);

            leader.kill();
            inserted.addAll(OutboxRows.insert(database, 100, 1));
            await().atMost(Duration.ofSeconds(90)).until(() -> "leader".equals(standby.role()));

            RelayFixtures.assertTopicHoldsExactly(
                    SharedInfra.kafka().adminClientProperties(), topic, inserted, Duration.ofSeconds(120));
        }
    }

    /**
     * A leader that stops answering while its connections stay open (a long pause, a partition): its lock's session
     * is ended, the standby takes the lock, and the frozen leader's walsender still holds the slot. With
     * wal_sender_timeout off for this database that walsender would hold it until TCP gave up, hours later; the new
     * leader ends it and streams while the old leader is still there, frozen.
     */
    @Test
    void aNewLeaderEndsTheWalsenderOfALeaderThatStoppedAnswering() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "frozen" + Long.toHexString(System.nanoTime());
        String slot = "slot_" + suffix;
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        try (Connection admin = SharedInfra.postgres().connect(database);
                var s = admin.createStatement()) {
            s.execute("ALTER DATABASE " + database + " SET wal_sender_timeout = 0");
        }
        Map<String, String> envA = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        Map<String, String> envB = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());

        try (RelayProcess a = new RelayProcess(envA, suffix + "-a").c1Only().start();
                RelayProcess b = new RelayProcess(envB, suffix + "-b").c1Only().start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> "leader".equals(a.role()) || "leader".equals(b.role()));
            RelayProcess leader = "leader".equals(a.role()) ? a : b;
            RelayProcess standby = leader == a ? b : a;
            RelayFixtures.awaitSlotActive(database, slot);
            await().atMost(Duration.ofSeconds(30)).until(() -> "standby".equals(standby.role()));
            long walsender = RelayFixtures.count(
                    database, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'");

            leader.freeze();
            assertThat(RelayFixtures.count(
                            database,
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory'"
                                    + " AND granted AND database = (SELECT oid FROM pg_database"
                                    + " WHERE datname = current_database())"))
                    .as("the frozen leader's lock session ended")
                    .isEqualTo(1);
            await().atMost(Duration.ofSeconds(60)).until(() -> "leader".equals(standby.role()));
            List<OutboxEvent> inserted = OutboxRows.insert(database, 100, 1);
            RelayFixtures.assertTopicHoldsExactly(
                    SharedInfra.kafka().adminClientProperties(), topic, inserted, Duration.ofSeconds(120));

            assertThat(leader.alive())
                    .as("the old leader, frozen, is still there")
                    .isTrue();
            assertThat(RelayFixtures.count(database, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + walsender))
                    .as("its walsender was ended")
                    .isZero();
            assertThat(RelayFixtures.count(
                            database, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                    .as("the new leader's walsender holds the slot")
                    .isNotIn(0L, walsender);
        }
    }
}
