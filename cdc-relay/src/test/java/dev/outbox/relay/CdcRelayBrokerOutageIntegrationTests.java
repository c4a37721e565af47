package dev.outbox.relay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.outbox.infra.KafkaBroker;
import dev.outbox.infra.Ports;
import dev.outbox.infra.TopicReader;
import dev.outbox.payments.outbox.OutboxEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Kafka is SIGKILLed while the relay runs and started again later: the relay waits, then delivers everything. */
class CdcRelayBrokerOutageIntegrationTests {

    @Test
    void brokerDownForAWhileLosesNothing(@TempDir Path tmp) throws Exception {
        String database = OutboxRows.migratedDatabase();
        String suffix = "outage" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        try (KafkaBroker.ChildProcess broker =
                new KafkaBroker.ChildProcess(Ports.free(), tmp.resolve("data")).start()) {
            Map<String, String> env = RelayFixtures.relayEnv(database, broker.bootstrapServers(), suffix, Ports.free());
            try (ConfigurableApplicationContext relay =
                    RelayApplication.builder().run(RelayFixtures.asArgs(env))) {
                RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
                List<OutboxEvent> inserted = new ArrayList<>(OutboxRows.insert(database, 100, 2));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RelayFixtures.count(
                                        database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                                == 0);

                broker.kill();
                inserted.addAll(OutboxRows.insert(database, 150, 2));
                await().during(Duration.ofSeconds(5))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> RelayFixtures.count(
                                        database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                                == 300);
                assertThat(RelayFixtures.count(
                                database, "SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL"))
                        .isZero();

                broker.start();

                await().atMost(Duration.ofSeconds(120))
                        .until(() -> RelayFixtures.count(
                                        database, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                                == 0);
                var seen = RelayFixtures.readUntilAll(
                                broker.adminClientProperties(), topic, OutboxRows.ids(inserted), Duration.ofSeconds(60))
                        .stream()
                        .map(r -> TopicReader.id(r))
                        .collect(Collectors.toSet());
                assertThat(seen)
                        .containsAll(
                                inserted.stream().map(e -> e.id().toString()).toList());
            }
        }
    }
}
