package dev.outbox.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
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
 * The stream writes nothing back, end to end: a relay (a child JVM) drains events and the outbox sees no update, an
 * idle pipeline stays published without the safety net, and what no slot streams (an operator's republish, rows
 * committed while the slot was gone) is published by the safety net exactly once. The safety net's grace is 3 s here,
 * 10 s for the drain (its rows must be the stream's).
 */
class CdcStreamHorizonIntegrationTests {

    private static final Duration GRACE = Duration.ofSeconds(3);

    private final String database = OutboxRows.migratedDatabase();
    private final String suffix = "horizon" + Long.toHexString(System.nanoTime());
    private final String topic = "t-" + suffix + ".payment.events";
    private final Map<String, Object> client = SharedInfra.kafka().adminClientProperties();

    private Map<String, String> env() {
        return env(GRACE);
    }

    private Map<String, String> env(Duration grace) {
        Map<String, String> env =
                RelayFixtures.relayEnv(database, SharedInfra.kafka().bootstrapServers(), suffix, Ports.free());
        env.put("RELAY_SAFETY_NET_GRACE", grace.toSeconds() + "s");
        env.put("RELAY_SAFETY_NET_INTERVAL", "1s");
        env.put("RELAY_MONITOR_INTERVAL", "500ms");
        return env;
    }

    @Test
    void aDrainUpdatesNoOutboxRowAndAnIdlePipelineStaysPublishedWithoutTheSafetyNet() throws Exception {
        Duration grace = Duration.ofSeconds(10);
        try (RelayProcess relay = new RelayProcess(env(grace), suffix).c1Only().start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            List<OutboxEvent> events = OutboxRows.insert(database, 5_000, 2);

            await().atMost(Duration.ofSeconds(120)).until(() -> RelayFixtures.pending(database) == 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> relay.meters().get("outbox_pending") == 0.0);
            // statistics reach pg_stat_user_tables when a backend commits or idles: the count must stay at zero
            await().during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(updatesOfTheOutbox())
                            .as("outbox updates")
                            .isLessThanOrEqualTo(deadLettered()));
            assertThat(deadLettered()).isZero();

            // idle for twice the safety net's grace: nothing pending, the net claims nothing, nothing twice on the wire
            await().during(grace.multipliedBy(2))
                    .atMost(grace.multipliedBy(4))
                    .until(() -> RelayFixtures.pending(database) == 0
                            && relay.meters().get("outbox_pending") == 0.0
                            && relay.meters().getOrDefault("outbox_polling_claimed_total", 0.0) == 0.0);
            Map<String, Long> copies = copiesOnTheTopic(events);
            assertThat(copies).hasSize(events.size());
            assertThat(copies.values()).as("no event twice on the wire").containsOnly(1L);
            assertThat(updatesOfTheOutbox()).isZero();
        }
    }

    /**
     * Negative: an operator asks for a streamed event to go out again (docs/operations.md's recipe). No slot streams
     * that update and the horizon keeps passing it: the safety net publishes it, once.
     */
    @Test
    void aStreamedRowAnOperatorRepublishesGoesOutOnceMore() throws Exception {
        try (RelayProcess relay = new RelayProcess(env(), suffix).c1Only().start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            List<OutboxEvent> events = OutboxRows.insert(database, 3, 1);
            await().atMost(Duration.ofSeconds(60)).until(() -> RelayFixtures.pending(database) == 0);
            UUID again = events.get(1).id();

            RelayFixtures.count(
                    database,
                    "WITH republished AS (UPDATE outbox_messages SET published_at = NULL, stream_coverable = false"
                            + " WHERE id = '" + again + "' RETURNING 1) SELECT count(*) FROM republished");

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> copiesOnTheTopic(events).get(again.toString()) == 2L);
            await().during(GRACE.multipliedBy(2))
                    .atMost(GRACE.multipliedBy(4))
                    .until(() -> RelayFixtures.pending(database) == 0
                            && copiesOnTheTopic(events).values().stream()
                                            .mapToLong(Long::longValue)
                                            .sum()
                                    == 4);
            assertThat(relay.meters().get("outbox_polling_claimed_total")).isEqualTo(1.0);
        }
    }

    /**
     * Negative: the slot is dropped while the relay is down and rows are committed meanwhile. The relay creates the
     * slot again and begins its horizon; the rows no slot streamed are published by the safety net, once, and those
     * after the new slot began by the stream, once.
     */
    @Test
    void rowsCommittedWhileTheSlotWasGoneArePublishedOnce() throws Exception {
        Map<String, String> env = env();
        List<OutboxEvent> all = new ArrayList<>();
        try (RelayProcess relay = new RelayProcess(env, suffix).c1Only().start()) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            all.addAll(OutboxRows.insert(database, 3, 1));
            await().atMost(Duration.ofSeconds(60)).until(() -> RelayFixtures.pending(database) == 0);
            relay.kill();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RelayFixtures.count(
                                    database,
                                    "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = 'slot_"
                                            + suffix + "'")
                            == 0);
            RelayFixtures.count(database, "SELECT count(*) FROM pg_drop_replication_slot('slot_" + suffix + "')");
            List<OutboxEvent> missed = OutboxRows.insert(database, 4, 1);
            all.addAll(missed);
            assertThat(RelayFixtures.pending(database))
                    .as("no slot, no horizon: pending")
                    .isEqualTo(4);

            relay.start();
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            all.addAll(OutboxRows.insert(database, 2, 1));

            await().atMost(Duration.ofSeconds(60)).until(() -> RelayFixtures.pending(database) == 0);
            await().during(GRACE.multipliedBy(2))
                    .atMost(GRACE.multipliedBy(4))
                    .until(() -> copiesOnTheTopic(all).size() == all.size()
                            && copiesOnTheTopic(all).values().stream().allMatch(n -> n == 1L));
            assertThat(relay.meters().get("outbox_polling_claimed_total"))
                    .as("the safety net published the missed rows")
                    .isEqualTo(missed.size());
            assertThat(relay.meters().get("outbox_cdc_rows_left_to_safety_net_total"))
                    .isEqualTo(missed.size());
        }
    }

    /** Event id -> copies on the topic (read to its end), among the given events. */
    private Map<String, Long> copiesOnTheTopic(List<OutboxEvent> events) {
        List<ConsumerRecord<String, String>> records = TopicReader.toEnd(client, topic, Duration.ofSeconds(30));
        java.util.Set<String> ids = java.util.Set.copyOf(OutboxRows.ids(events));
        return records.stream()
                .map(TopicReader::id)
                .filter(ids::contains)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    private long updatesOfTheOutbox() {
        return RelayFixtures.count(
                database, "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox_messages'");
    }

    private long deadLettered() {
        return RelayFixtures.count(database, "SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL");
    }
}
