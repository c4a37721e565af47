package dev.outbox.system;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.outbox.local.LocalCredentials;
import dev.outbox.reconcile.InvariantChecker;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayFixtures;
import dev.outbox.relay.RelayProcess;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay SIGKILLed while events keep coming, and started again after its safety net's grace period has passed
 * for the rows written meanwhile. Nothing is lost, and the restart republishes no more than the design promises:
 * the events the stream delivered after its last stored horizon (one a second), bounded here by the events written in
 * the two seconds before the kill. (The safety net, which sees the rows waiting, and CDC, which resumes from its
 * offset, must not both publish them.) The restart's phases are measured and printed, never asserted. In both modes
 * that stream: cdc, and auto (which streams as cdc does while logical replication is there).
 */
class RelayRestartIntegrationTests {

    @ParameterizedTest(name = "relay.mode={0}")
    @ValueSource(strings = {"cdc", "auto"})
    void aRestartLosesNothingAndRepublishesAtMostTheLastTwoSeconds(String mode) throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "restart" + mode + Long.toHexString(System.nanoTime());
        String slot = "slot_" + suffix;
        String topic = "t-" + suffix + ".payment.events";
        Map<String, String> env =
                RelayFixtures.relayEnv(database, SharedInfra.kafka().bootstrapServers(), suffix, Ports.free());
        env.put("RELAY_MODE", mode);
        env.put("RELAY_SAFETY_NET_GRACE", "3s");
        env.put("RELAY_SAFETY_NET_INTERVAL", "1s");
        JdbcClient jdbc = JdbcClient.create(OutboxRows.dataSource(database));
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger written = new AtomicInteger();
        Thread writer = new Thread(
                () -> {
                    SingleConnectionDataSource connection = new SingleConnectionDataSource(
                            SharedInfra.postgres().jdbcUrl(database),
                            LocalCredentials.POSTGRES.user(),
                            LocalCredentials.POSTGRES.password(),
                            true);
                    while (writing.get()) {
                        OutboxRows.insert(connection, 1, 1);
                        written.incrementAndGet();
                        sleep(10);
                    }
                    connection.destroy();
                },
                "outbox-writer");

        try (RelayProcess relay = new RelayProcess(env, suffix).start()) {
            RelayFixtures.awaitSlotActive(database, slot);
            await().atMost(Duration.ofSeconds(60)).until(relay::streaming);
            writer.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> published(jdbc) > 300);

            Instant killed = Instant.now();
            relay.kill();
            long slotFreed = until(() -> !slotActive(jdbc, slot), killed);
            sleep(6_000); // twice the grace: every row written meanwhile is the safety net's as well as CDC's
            Instant restarted = Instant.now();
            relay.start();
            long leader = until(() -> "leader".equals(relay.role()), killed);
            long streaming = until(relay::streaming, killed);
            await().atMost(Duration.ofSeconds(60)).until(() -> firstSentAfter(topic, restarted) != null);
            long firstEvent =
                    Duration.between(killed, firstSentAfter(topic, restarted)).toMillis();
            sleep(3_000);
            writing.set(false);
            writer.join();
            await().atMost(Duration.ofSeconds(60)).until(() -> RelayFixtures.pending(database) == 0);

            long republishable = jdbc.sql("""
                    SELECT count(*) FROM outbox_messages
                     WHERE occurred_at BETWEEN CAST(:from AS timestamptz) AND CAST(:to AS timestamptz)""")
                    .param("from", Timestamp.from(killed.minusSeconds(2)))
                    .param("to", Timestamp.from(killed))
                    .query(Long.class)
                    .single();
            long events = jdbc.sql("SELECT count(*) FROM outbox_messages")
                    .query(Long.class)
                    .single();
            long[] wire = wire(topic, events);
            long duplicates = wire[0] - wire[1];
            System.out.printf(
                    "relay restart (" + mode + "): kill -> slot free %d ms, -> leader %d ms, -> streaming %d ms, "
                            + "-> first event published %d ms; %d events, %d records, %d duplicates (bound %d)%n",
                    slotFreed,
                    leader,
                    streaming,
                    firstEvent,
                    events,
                    wire[0],
                    duplicates,
                    republishable);
            assertThat(wire[1]).as("every event on the topic").isEqualTo(events);
            assertThat(duplicates)
                    .as("records sent twice because of the restart")
                    .isLessThanOrEqualTo(republishable);
        } finally {
            writing.set(false);
        }
    }

    /** Records on the topic and distinct event ids among them, once every event has arrived. */
    private static long[] wire(String topic, long events) {
        long[] wire = new long[2];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            long[] counted = InvariantChecker.wire(SharedInfra.kafka().adminClientProperties(), topic);
            System.arraycopy(counted, 0, wire, 0, 2);
            return counted[1] >= events;
        });
        return wire;
    }

    private static long published(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM outbox_delivery WHERE published")
                .query(Long.class)
                .single();
    }

    /** When the first record sent after {@code after} was sent (its producer timestamp), or {@code null}. */
    private static Instant firstSentAfter(String topic, Instant after) {
        return TopicReader.toEnd(SharedInfra.kafka().adminClientProperties(), topic, Duration.ofSeconds(10)).stream()
                .map(r -> Instant.ofEpochMilli(r.timestamp()))
                .filter(t -> t.isAfter(after))
                .min(Instant::compareTo)
                .orElse(null);
    }

    private static boolean slotActive(JdbcClient jdbc, String slot) {
        return jdbc.sql("SELECT active FROM pg_replication_slots WHERE slot_name = :slot")
                .param("slot", slot)
                .query(Boolean.class)
                .optional()
                .orElse(false);
    }

    /** Milliseconds from {@code since} until the condition first held (polled every 50 ms, for at most 2 min). */
    private static long until(java.util.concurrent.Callable<Boolean> condition, Instant since) {
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(50))
                .until(condition);
        return Duration.between(since, Instant.now()).toMillis();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
