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
 * same id), none is missing, and every row ends up marked published. Then two instances share one slot: only
 * one streams, and when it is killed the standby takes over.
 */
class CdcRelayCrashIntegrationTests {

    /**
     * A writer commits payments without a pause from before the relay streams until after it is killed, so the kill
     * lands while events flow in, are streamed, sent and marked (waiting for a backlog to be half done races a fast
     * relay, which may finish it between two looks).
     */
    @Test
    void sigkillMidStreamThenRestartLosesNothing() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "crash" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());

        try (RelayProcess relay = new RelayProcess(env, suffix).start();
                OutboxWriterThread writer = new OutboxWriterThread(OutboxRows.dataSource(database))) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            writer.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> RelayFixtures.count(
                                            database,
                                            "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL")
                                    >= 300
                            || writer.done());
            int writtenAtKill = writer.count();
            relay.kill();
            long publishedAtKill = RelayFixtures.count(
                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL");
            // the writer goes on while the relay is down: the restart finds events it never saw
            await().atMost(Duration.ofSeconds(60)).until(() -> writer.count() >= writtenAtKill + 1000 || writer.done());
            List<OutboxEvent> inserted = writer.stop();
            relay.start();

            List<ConsumerRecord<String, String>> onTopic = RelayFixtures.assertTopicHoldsExactly(
                    SharedInfra.kafka().adminClientProperties(), topic, inserted, Duration.ofSeconds(120));
            System.out.printf(
                    "crash test: %d of %d written events marked published at the kill; %d events, %d records on the"
                            + " topic (%d duplicates)%n",
                    publishedAtKill, writtenAtKill, inserted.size(), onTopic.size(), onTopic.size() - inserted.size());
            // a row Kafka acknowledged whose offset the engine stored before the kill, and whose mark the kill lost,
            // is not streamed again: the safety net marks it once its grace (60 s by default) has passed, at its next
            // sweep (every 10 s)
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> RelayFixtures.count(
                                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                            == 0);
        }
    }

    /**
     * The pipeline's worst moment: Kafka acknowledged the events and the relay dies before published_at is marked
     * (the rows are locked, so the marks wait; the offsets may or may not have moved). After the restart, either the
     * stream sends them again (offset not committed) or the safety net does (offset committed, rows unmarked): the
     * same events go out again with the same ids, and every row ends up marked. Nothing is lost.
     */
    @Test
    void crashBetweenAcknowledgementAndMarkRepublishesTheSameIds() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "ackmark" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        env.put("RELAY_SAFETY_NET_GRACE", "3s");
        env.put("RELAY_SAFETY_NET_INTERVAL", "1s");

        try (RelayProcess relay = new RelayProcess(env, suffix).start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            relay.kill();
            List<OutboxEvent> inserted = OutboxRows.insert(database, 200, 2);
            List<String> ids = OutboxRows.ids(inserted);

            List<ConsumerRecord<String, String>> firstRound;
            try (Connection locker = SharedInfra.postgres().connect(database)) {
                locker.setAutoCommit(false);
                try (var lock = locker.createStatement()) {
                    lock.execute("SELECT id FROM outbox_messages FOR UPDATE");
                }
                relay.start();
                // the events are acknowledged while their marks wait; the topic stops growing
                Map<String, Object> client = SharedInfra.kafka().adminClientProperties();
                TopicReader.untilIds(client, topic, ids, Duration.ofSeconds(90));
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
                // the dead relay's UPDATE still waits server-side and would commit once the lock goes: end its backend
                // as the crash would have if it had come a moment earlier
                try (var s = locker.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND wait_event_type = 'Lock'");
                }
                locker.rollback();
            }
            Set<String> acknowledged = firstRound.stream().map(TopicReader::id).collect(Collectors.toSet());
            assertThat(acknowledged)
                    .as("all acknowledged while their marks waited")
                    .isEqualTo(new HashSet<>(ids));
            assertThat(RelayFixtures.pending(database))
                    .as("killed after the acknowledgements, before the marks")
                    .isEqualTo(inserted.size());

            relay.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> RelayFixtures.pending(database) == 0);
            // marks follow acknowledgements, so everything republished is on the topic by now
            List<ConsumerRecord<String, String>> onTopic =
                    TopicReader.toEnd(SharedInfra.kafka().adminClientProperties(), topic, Duration.ofSeconds(30));
            Map<String, Long> copies =
                    onTopic.stream().collect(Collectors.groupingBy(TopicReader::id, Collectors.counting()));
            assertThat(copies.keySet()).as("nothing lost, nothing unknown").isEqualTo(new HashSet<>(ids));
            assertThat(acknowledged)
                    .as("acknowledged before the crash, published again after the restart with the same ids")
                    .allMatch(id -> copies.get(id) >= 2);
            System.out.printf(
                    "ack/mark crash: %d events, %d acknowledged before the kill, %d records on the topic%n",
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

        try (RelayProcess a = new RelayProcess(envA, suffix + "-a").start();
                RelayProcess b = new RelayProcess(envB, suffix + "-b").start()) {
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
                                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                            == 0);

            leader.kill();
            inserted.addAll(OutboxRows.insert(database, 100, 1));
            await().atMost(Duration.ofSeconds(90)).until(() -> "leader".equals(standby.role()));

            RelayFixtures.assertTopicHoldsExactly(
                    SharedInfra.kafka().adminClientProperties(), topic, inserted, Duration.ofSeconds(120));
        }
    }
}
