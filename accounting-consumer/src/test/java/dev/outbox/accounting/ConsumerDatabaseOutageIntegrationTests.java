package dev.outbox.accounting;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.outbox.accounting.EventFixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumer's database becomes unreachable for a while: a netcrusher TCP proxy between the consumer and
 * PostgreSQL is closed, cutting every open connection and refusing new ones, while events keep arriving. The
 * consumer retries without skipping or dead-lettering anything and applies every event once when it is back.
 */
class ConsumerDatabaseOutageIntegrationTests {

    @Test
    void databaseUnreachableForAWhileSkipsNothingAndAppliesEachEventOnce() throws Exception {
        String topic = "dbcut-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 3);
        String database = EventFixtures.accountingDatabase();
        JdbcClient direct = EventFixtures.jdbc(database);
        int proxyPort = Ports.free();
        try (NioReactor reactor = new NioReactor();
                TcpCrusher proxy = TcpCrusherBuilder.builder()
                        .withReactor(reactor)
                        .withBindAddress("127.0.0.1", proxyPort)
                        .withConnectAddress(
                                SharedInfra.postgres().host(),
                                SharedInfra.postgres().port())
                        .buildAndOpen();
                KafkaProducer<String, String> producer = EventFixtures.producer()) {
            String viaProxy = "jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + database;
            try (ConfigurableApplicationContext consumer = AccountingApplication.builder()
                    .run(EventFixtures.consumerArgs(
                            database,
                            topic,
                            "dbcut-" + topic,
                            "--spring.datasource.url=" + viaProxy,
                            "--spring.datasource.hikari.connection-timeout=1000"))) {
                List<Event> events = new ArrayList<>();
                send(producer, topic, events, 100);
                await().atMost(Duration.ofSeconds(60)).until(() -> count(direct) == 100);

                proxy.close();
                send(producer, topic, events, 200);
                await().during(Duration.ofSeconds(5))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> count(direct) == 100);
                proxy.open();

                await().atMost(Duration.ofSeconds(120)).until(() -> count(direct) == 300);
                assertThat(direct.sql("""
                        SELECT count(*) FROM (SELECT event_id FROM ledger_entries GROUP BY event_id
                                              HAVING count(*) > 1) d""").query(Long.class).single()).isZero();
                assertThat(EventFixtures.read(topic + ".DLT", 1, Duration.ofSeconds(3)))
                        .isEmpty();
            }
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, List<Event> events, int n)
            throws Exception {
        for (int i = 0; i < n; i++) {
            Event e = Event.created(UUID.randomUUID(), "1.00", "EUR");
            events.add(e);
            producer.send(record(topic, null, e));
        }
        producer.flush();
    }

    private static long count(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM ledger_entries").query(Long.class).single();
    }
}
