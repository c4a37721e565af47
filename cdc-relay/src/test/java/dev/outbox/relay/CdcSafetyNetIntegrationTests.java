package dev.outbox.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.cdc.CdcRelay;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replication slot is dropped while the relay is down, so CDC never sees the rows written meanwhile. The
 * cdc-mode safety net publishes them once they are older than the grace period: a lost slot loses nothing. And the
 * other way round: a backlog the slot does see is the stream's alone, however long the stream takes to deliver it.
 */
class CdcSafetyNetIntegrationTests {

    @Test
    void rowsWrittenWhileTheSlotWasGoneArePublishedByTheSafetyNet() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "net" + Long.toHexString(System.nanoTime());
        String kafka = SharedInfra.kafka().bootstrapServers();
        String slot = "slot_" + suffix;
        String[] args = args(RelayFixtures.relayEnv(database, kafka, suffix, Ports.free()), "2s", "1s");
        List<OutboxEvent> inserted = new ArrayList<>();

        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            RelayFixtures.awaitSlotActive(database, slot);
            inserted.addAll(OutboxRows.insert(database, 25, 2));
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(database) == 0);
        }
        awaitSlotIdle(database, slot);
        RelayFixtures.count(database, "SELECT count(*) FROM (SELECT pg_drop_replication_slot('" + slot + "')) d");
        inserted.addAll(OutboxRows.insert(database, 50, 2));

        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(database) == 0);
            double swept = claimedByTheNet(relay);
            assertThat(swept).isGreaterThanOrEqualTo(100);
        }
        Set<String> seen = RelayFixtures.readUntilAll(
                        "t-" + suffix + ".payment.events", OutboxRows.ids(inserted), Duration.ofSeconds(60))
                .stream()
                .map(r -> TopicReader.id(r))
                .collect(Collectors.toSet());
        assertThat(seen)
                .containsAll(inserted.stream().map(e -> e.id().toString()).toList());
    }

    /**
     * A backlog far older than the net's grace waits when the relay starts, and the net looks ten times a second. The
     * stream delivers the backlog, and the net claims none of it: not while the relay starts, and not while the stream
     * catches up, which takes longer than the grace. (A net that stood back only for a time after the stream began
     * swept the backlog beside the stream, and both published it.) The one row no slot streams, an event an operator
     * republished, is the net's: published once more. Nothing else goes out twice.
     */
    @Test
    void aBacklogTheSlotStreamsIsTheStreamsAloneWhileItCatchesUp() throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "catchup" + Long.toHexString(System.nanoTime());
        String kafka = SharedInfra.kafka().bootstrapServers();
        String slot = "slot_" + suffix;
        String[] args = args(RelayFixtures.relayEnv(database, kafka, suffix, Ports.free()), "1s", "100ms");
        List<OutboxEvent> inserted = new ArrayList<>();

        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            RelayFixtures.awaitSlotActive(database, slot);
            inserted.addAll(OutboxRows.insert(database, 1, 1));
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(database) == 0);
        }
        awaitSlotIdle(database, slot);
        assertThat(RelayFixtures.count(
                        database,
                        "WITH republished AS (UPDATE outbox_messages SET published_at = NULL, stream_coverable = false"
                                + " WHERE id = '" + inserted.get(0).id() + "' RETURNING 1)"
                                + " SELECT count(*) FROM republished"))
                .isOne();
        inserted.addAll(OutboxRows.insert(database, 5_000, 4));
        Thread.sleep(2_000); // twice the grace: every row of the backlog is old enough for the net

        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            await().atMost(Duration.ofSeconds(120)).until(() -> pending(database) == 0);
            Thread.sleep(2_000); // the net keeps looking, twice the grace: nothing is left for it
            double swept = claimedByTheNet(relay);
            assertThat(swept)
                    .as("rows the safety net claimed: the republished one")
                    .isOne();
        }
        assertThat(RelayFixtures.count(database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL"))
                .as("rows a lease owner marked: the republished one")
                .isOne();
        List<String> onTopic = RelayFixtures.assertTopicHoldsExactly(
                        SharedInfra.kafka().adminClientProperties(),
                        "t-" + suffix + ".payment.events",
                        inserted,
                        Duration.ofSeconds(60))
                .stream()
                .map(TopicReader::id)
                .toList();
        assertThat(onTopic)
                .as("records on the topic: one per event, and the republished one's copy")
                .hasSize(inserted.size() + 1);
    }

    /**
     * A leader whose engine never streams (the publication it names does not exist) delivers nothing. Once its engine
     * has failed and twice the grace has passed since it took the lead, the net takes every row older than the grace,
     * as it would a standby's: each published once, while the relay still leads.
     */
    @Test
    void rowsALeaderThatNeverStreamsLeavesArePublishedByTheNet() {
        String database = OutboxRows.migratedDatabase();
        String suffix = "stuck" + Long.toHexString(System.nanoTime());
        Map<String, String> env =
                RelayFixtures.relayEnv(database, SharedInfra.kafka().bootstrapServers(), suffix, Ports.free());
        env.put("RELAY_CDC_PUBLICATION", "no_such_publication");
        String[] args = args(env, "1s", "200ms");

        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            // the slot's horizon has begun: the rows written from now on are the stream's, none left to the net
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> RelayFixtures.count(
                                    database,
                                    "SELECT count(*) FROM outbox_stream_horizon WHERE slot_name = 'slot_" + suffix
                                            + "'")
                            == 1);
            List<OutboxEvent> inserted = OutboxRows.insert(database, 5, 2);
            assertThat(RelayFixtures.count(database, "SELECT count(*) FROM outbox_messages WHERE stream_coverable"))
                    .as("rows a stream would deliver")
                    .isEqualTo(inserted.size());
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(database) == 0);
            double swept = claimedByTheNet(relay);
            assertThat(swept).as("rows the safety net claimed").isEqualTo(inserted.size());
            assertThat(relay.getBean(CdcRelay.class).role()).isEqualTo(CdcRelay.Role.LEADER);
            assertThat(RelayFixtures.assertTopicHoldsExactly(
                            SharedInfra.kafka().adminClientProperties(),
                            "t-" + suffix + ".payment.events",
                            inserted,
                            Duration.ofSeconds(60)))
                    .as("one record per event")
                    .hasSize(inserted.size());
        }
    }

    /** The relay's settings, with the safety net's grace and interval. */
    private static String[] args(Map<String, String> env, String grace, String interval) {
        return Stream.concat(
                        Stream.of(RelayFixtures.asArgs(env)),
                        Stream.of("--relay.safety-net.grace=" + grace, "--relay.safety-net.interval=" + interval))
                .toArray(String[]::new);
    }

    /** The walsender lets go of the slot after the relay's connection is gone, not when the context has closed. */
    private static void awaitSlotIdle(String database, String slot) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RelayFixtures.count(
                                database,
                                "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '" + slot + "'")
                        == 0);
    }

    private static double claimedByTheNet(ConfigurableApplicationContext relay) {
        return relay.getBean(MeterRegistry.class)
                .find("outbox_polling_claimed")
                .tag("role", "safety-net")
                .counter()
                .count();
    }

    private static long pending(String database) {
        return RelayFixtures.count(
                database, "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL");
    }
}
