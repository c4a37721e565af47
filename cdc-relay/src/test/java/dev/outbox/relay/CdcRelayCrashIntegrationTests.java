package dev.outbox.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.outbox.infra.Ports;
import dev.outbox.infra.SharedInfra;
import dev.outbox.infra.TopicReader;
import dev.outbox.payments.outbox.OutboxEvent;
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

    @Test
    void sigkillMidStreamThenRestartLosesNothing() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "crash" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        List<OutboxEvent> inserted = new ArrayList<>();

        try (RelayProcess relay = new RelayProcess(env, suffix).start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            for (int batch = 0; batch < 15; batch++) {
                inserted.addAll(OutboxRows.insert(database, 50, 2));
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> RelayFixtures.count(
                                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL")
                            >= 300);
            long publishedAtKill = RelayFixtures.count(
                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL");
            relay.kill();
            assertThat(publishedAtKill).as("killed mid-stream").isLessThan(inserted.size());

            for (int batch = 0; batch < 10; batch++) {
                inserted.addAll(OutboxRows.insert(database, 50, 2));
            }
            relay.start();

            List<ConsumerRecord<String, String>> onTopic =
                    RelayFixtures.readUntilAll(topic, OutboxRows.ids(inserted), Duration.ofSeconds(120));
            Set<String> expected = inserted.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
            Set<String> seen = new HashSet<>();
            for (ConsumerRecord<String, String> r : onTopic) {
                seen.add(TopicReader.id(r));
            }
            assertThat(inserted).hasSizeGreaterThanOrEqualTo(2000);
            assertThat(expected).allMatch(seen::contains);
            assertThat(seen).isEqualTo(expected);
            System.out.printf(
                    "crash test: %d events, %d records on the topic (%d duplicates)%n",
                    expected.size(), onTopic.size(), onTopic.size() - expected.size());
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> RelayFixtures.count(
                                    database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                            == 0);
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

            Set<String> seen =
                    RelayFixtures.readUntilAll(topic, OutboxRows.ids(inserted), Duration.ofSeconds(120)).stream()
                            .map(r -> TopicReader.id(r))
                            .collect(Collectors.toSet());
            assertThat(seen)
                    .containsAll(inserted.stream().map(e -> e.id().toString()).toList());
            assertThat(seen).doesNotContain(UUID.randomUUID().toString());
        }
    }
}
