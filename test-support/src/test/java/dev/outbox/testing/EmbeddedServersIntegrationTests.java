package dev.outbox.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.outbox.local.Postgres;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedServersIntegrationTests {

    @Test
    void postgresRunsWithLogicalDecoding() throws Exception {
        Postgres pg = SharedInfra.postgres();
        SharedInfra.createDatabases(pg, "infra_check");
        try (Connection c = pg.connect("infra_check")) {
            ResultSet rs = c.createStatement().executeQuery("SHOW wal_level");
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("logical");
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS t (id int primary key)");
            c.createStatement().execute("SELECT pg_create_logical_replication_slot('infra_check_slot', 'pgoutput')");
            c.createStatement().execute("SELECT pg_drop_replication_slot('infra_check_slot')");
        }
    }

    @Test
    void kafkaAcceptsAndServesRecords() {
        String topic = "infra-check";
        try (var producer = new KafkaProducer<String, String>(Map.of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers(),
                "key.serializer", StringSerializer.class.getName(),
                "value.serializer", StringSerializer.class.getName()))) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers(),
                "group.id", "infra-check",
                "auto.offset.reset", "earliest",
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()))) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int seen = 0;
            while (seen == 0 && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                seen += records.count();
            }
            assertThat(seen).isEqualTo(1);
        }
    }

    @Test
    void childBrokerStopsOnSigkillAndListensAgainOnStart(@TempDir Path dir) throws Exception {
        int port = Ports.free();
        try (var broker = new ChildKafka(port, dir.resolve("data")).c1Only().start()) {
            assertThat(broker.isAlive()).isTrue();
            broker.kill();
            assertThat(Ports.isListening(port)).isFalse();
            broker.start();
            assertThat(Ports.isListening(port)).isTrue();
        }
    }
}
