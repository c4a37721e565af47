package dev.outbox.relay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.cdc.SlotMonitor;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kafka is SIGKILLed while the relay runs and a writer keeps committing events, and started again later while the
 * writer still goes on: the relay waits, then delivers everything, and dead-letters nothing.
 */
class CdcRelayBrokerOutageIntegrationTests {

    private static final String PUBLISHED = "SELECT count(*) FROM outbox_delivery WHERE published";
    private static final String DEAD_LETTERED =
            "SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL";

    /**
     * The writer commits 5 payments (10 events) per transaction, 50 ms apart, from before the kill until events were
     * written and published after the restart: events arrive before, during and after the outage.
     */
    @Test
    void brokerDownForAWhileWhileEventsKeepArrivingLosesNothing(@TempDir Path tmp) throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "outage" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        try (ChildKafka broker =
                new ChildKafka(Ports.free(), tmp.resolve("data")).c1Only().start()) {
            Map<String, String> env = RelayFixtures.relayEnv(database, broker.bootstrapServers(), suffix, Ports.free());
            try (ConfigurableApplicationContext relay =
                            RelayApplication.builder().run(RelayFixtures.asArgs(env));
                    OutboxWriterThread writer = new OutboxWriterThread(
                            OutboxRows.dataSource(database), 5, Duration.ofMillis(50), 100_000)) {
                SlotMonitor slot = relay.getBean(SlotMonitor.class);
                RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
                writer.start();
                // events flow through the relay before the kill
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RelayFixtures.count(database, PUBLISHED) >= 200 || writer.done());
                assertThat(slot.health().getDetails())
                        .as("the stream is healthy before the kill")
                        .doesNotContainKey("lastError");

                int writtenAtKill = writer.count();
                broker.kill();
                // the writer goes on while the broker is down (about 5 s, within the relay's 15 s delivery timeout:
                // its producer keeps the records and retries, and the stream waits)
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> writer.count() >= writtenAtKill + 1000 || writer.done());
                int writtenAtRestart = writer.count();
                long publishedAtRestart = RelayFixtures.count(database, PUBLISHED);
                assertThat(writtenAtRestart)
                        .as("events arrived during the outage")
                        .isGreaterThan(writtenAtKill);
                assertThat(publishedAtRestart)
                        .as("nothing written after the kill was marked published by a dead broker")
                        .isLessThanOrEqualTo(writtenAtKill);
                assertThat(RelayFixtures.count(database, DEAD_LETTERED))
                        .as("nothing dead-lettered during the outage")
                        .isZero();

                broker.start();
                // the writer goes on after the restart until the relay publishes again
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> (writer.count() >= writtenAtRestart + 500
                                        && RelayFixtures.count(database, PUBLISHED) > publishedAtRestart)
                                || writer.done());
                List<OutboxEvent> inserted = writer.stop();
                assertThat(inserted.size())
                        .as("events arrived after the restart (the writer did not reach its maximum first)")
                        .isGreaterThanOrEqualTo(writtenAtRestart + 500);

                await().atMost(Duration.ofSeconds(180)).until(() -> RelayFixtures.pending(database) == 0);
                assertThat(RelayFixtures.count(database, DEAD_LETTERED))
                        .as("nothing dead-lettered")
                        .isZero();
                assertThat(RelayFixtures.count(database, PUBLISHED))
                        .as("every row marked published")
                        .isEqualTo(inserted.size());

                List<ConsumerRecord<String, String>> onTopic = RelayFixtures.assertTopicHoldsExactly(
                        broker.adminClientProperties(), topic, inserted, Duration.ofSeconds(120));
                System.out.printf(
                        "broker outage: %d events written before the kill (%d published at the restart), %d during the"
                                + " outage, %d after the restart; %d records on the topic (%d duplicates)%n",
                        writtenAtKill,
                        publishedAtRestart,
                        writtenAtRestart - writtenAtKill,
                        inserted.size() - writtenAtRestart,
                        onTopic.size(),
                        onTopic.size() - inserted.size());
            }
        }
    }
}
