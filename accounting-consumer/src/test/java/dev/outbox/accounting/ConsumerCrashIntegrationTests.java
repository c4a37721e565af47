package dev.outbox.accounting;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.contract.Topics;
import dev.outbox.local.JavaProcess;
import dev.outbox.local.LocalCredentials;
import dev.outbox.pause.PausingConsumer;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.outbox.accounting.EventFixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A crash before the offset commit leaves no second entry: the consumer process is SIGKILLed after its database commit and before its offset commit.
 * Kafka redelivers the batch to the restarted consumer; the inbox turns every redelivery into a no-op.
 */
class ConsumerCrashIntegrationTests {

    @Test
    void crashAfterDbCommitBeforeOffsetCommitRedeliversWithoutASecondEntry(@TempDir Path tmp) throws Exception {
        String topic = "crash-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 3);
        String database = EventFixtures.accountingDatabase();
        JdbcClient jdbc = EventFixtures.jdbc(database);
        List<Event> events = new ArrayList<>();
        try (KafkaProducer<String, String> producer = EventFixtures.producer()) {
            for (int i = 0; i < 60; i++) {
                Event e = Event.created(UUID.randomUUID(), "3.00", "EUR");
                events.add(e);
                producer.send(record(topic, null, e));
            }
            producer.flush();
        }
        Path marker = tmp.resolve("reached");
        int port = Ports.free();
        int management = Ports.free();
        Map<String, String> env = new HashMap<>(Map.of(
                "ACCOUNTING_DB_URL", SharedInfra.postgres().jdbcUrl(database),
                "KAFKA_BOOTSTRAP_SERVERS", SharedInfra.kafka().bootstrapServers(),
                "ACCOUNTING_GROUP_ID", "crash-group",
                "ACCOUNTING_TOPIC", topic,
                "ACCOUNTING_HTTP_PORT", String.valueOf(port),
                "ACCOUNTING_MANAGEMENT_PORT", String.valueOf(management)));
        Map<String, String> crashing = new HashMap<>(env);
        crashing.put("PAUSE_MARKER", marker.toString());

        Process first = JavaProcess.builder(PausingConsumer.class.getName())
                .env(crashing)
                .heap("384m")
                .jvmArg("-XX:TieredStopAtLevel=1")
                .logTo(Path.of("target", "consumer-crash-1.log"))
                .start();
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(marker));
            await().atMost(Duration.ofSeconds(5)).until(() -> inboxCount(jdbc) > 0);
        } finally {
            JavaProcess.kill(first);
        }
        long committedBeforeKill = inboxCount(jdbc);
        assertThat(committedBeforeKill).isPositive();

        Process second = JavaProcess.builder(AccountingApplication.class.getName())
                .env(env)
                .heap("384m")
                .jvmArg("-XX:TieredStopAtLevel=1")
                .logTo(Path.of("target", "consumer-crash-2.log"))
                .start();
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> ledgerCount(jdbc) == events.size());
            await().atMost(Duration.ofSeconds(90))
                    .untilAsserted(
                            () -> assertThat(duplicatesSeenBy(management)).isGreaterThanOrEqualTo(committedBeforeKill));
        } finally {
            JavaProcess.kill(second);
        }
        // what the inbox decided, not what the ledger's unique key forbids anyway: every event's amount once, and no
        // redelivery reached the ledger's constraint (it would have failed its batch and dead-lettered the event)
        assertThat(ledgerCount(jdbc)).isEqualTo(events.size());
        assertThat(jdbc.sql("SELECT sum(amount) FROM ledger_entries")
                        .query(BigDecimal.class)
                        .single())
                .isEqualByComparingTo(new BigDecimal("3.00").multiply(BigDecimal.valueOf(events.size())));
        assertThat(TopicReader.toEnd(
                        SharedInfra.kafka().adminClientProperties(), Topics.deadLetters(topic), Duration.ofSeconds(10)))
                .as("nothing dead-lettered")
                .isEmpty();
    }

    private static long inboxCount(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM inbox_messages").query(Long.class).single();
    }

    private static long ledgerCount(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM ledger_entries").query(Long.class).single();
    }

    /** The restarted process's own count of redeliveries it ignored, read from its Prometheus endpoint. */
    private static double duplicatesSeenBy(int managementPort) {
        try {
            String metrics = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus"))
                                    .header("Authorization", "Bearer " + LocalCredentials.ADMIN_TOKEN)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return metrics.lines()
                    .filter(l -> l.startsWith("accounting_events_total{") && l.contains("duplicate"))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum();
        } catch (Exception e) {
            return 0;
        }
    }
}
