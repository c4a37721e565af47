package dev.outbox.accounting;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.infra.PostgresServer;
import dev.outbox.infra.SharedInfra;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Events written to Kafka exactly as the relay writes them, and the consumer's configuration for a test. */
final class EventFixtures {

    private EventFixtures() {
    }

    record Event(UUID id, UUID paymentId, long version, String type, String payload, String traceparent) {

        static Event created(UUID paymentId, String amount, String currency) {
            return new Event(UUID.randomUUID(), paymentId, 1, "PaymentCreated", """
                    {"paymentId":"%s","clientId":"client-a","amount":"%s","currency":"%s",\
                    "occurredAt":"2026-12-02T10:00:00Z"}""".formatted(paymentId, amount, currency), null);
        }

        static Event refunded(UUID paymentId, long version, String amount, String currency) {
            return new Event(UUID.randomUUID(), paymentId, version, "PaymentRefunded", """
                    {"paymentId":"%s","refundId":"%s","amount":"%s","currency":"%s","refundedTotal":"0",\
                    "occurredAt":"2026-12-02T10:00:00Z"}""".formatted(paymentId, UUID.randomUUID(), amount,
                    currency), null);
        }

        Event withTraceparent(String value) {
            return new Event(id, paymentId, version, type, payload, value);
        }
    }

    static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers(),
                "key.serializer", StringSerializer.class.getName(),
                "value.serializer", StringSerializer.class.getName(),
                "acks", "all"));
    }

    static ProducerRecord<String, String> record(String topic, Integer partition, Event e) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("id", e.id().toString().getBytes(StandardCharsets.UTF_8));
        headers.add("event_type", e.type().getBytes(StandardCharsets.UTF_8));
        headers.add("schema_version", "1".getBytes(StandardCharsets.UTF_8));
        headers.add("aggregate_version", String.valueOf(e.version()).getBytes(StandardCharsets.UTF_8));
        headers.add("occurred_at", Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        if (e.traceparent() != null) {
            headers.add("traceparent", e.traceparent().getBytes(StandardCharsets.UTF_8));
        }
        return new ProducerRecord<>(topic, partition, e.paymentId().toString(), e.payload(), headers);
    }

    static String accountingDatabase() {
        return SharedInfra.freshDatabase("accounting");
    }

    static JdbcClient jdbc(String database) {
        return JdbcClient.create(new DriverManagerDataSource(SharedInfra.postgres().jdbcUrl(database),
                PostgresServer.USER, PostgresServer.PASSWORD));
    }

    /** Spring arguments for a consumer in this JVM. */
    static String[] consumerArgs(String database, String topic, String group, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0", "--management.server.port=0",
                "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(database),
                "--spring.datasource.username=" + PostgresServer.USER,
                "--spring.datasource.password=" + PostgresServer.PASSWORD,
                "--spring.kafka.bootstrap-servers=" + SharedInfra.kafka().bootstrapServers(),
                "--spring.kafka.consumer.group-id=" + group,
                "--accounting.topic=" + topic,
                "--accounting.monitor-interval=500ms",
                // sha256("auditor-token"): a ledger reader besides the admin token
                "--accounting.ledger-readers=auditor=ba1315421b7c58d465abec0bd552af5ff314ed8f9c5c0a7b7a6a6ecbac9bcbe5"));
        for (String override : extra) {
            String key = override.substring(0, override.indexOf('=') + 1);
            args.removeIf(a -> a.startsWith(key));
            args.add(override);
        }
        return args.toArray(String[]::new);
    }

    static List<ConsumerRecord<String, String>> read(String topic, int atLeast, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers(),
                "group.id", "reader-" + UUID.randomUUID(),
                "auto.offset.reset", "earliest",
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()))) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < atLeast && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(300)).forEach(records::add);
            }
        }
        return records;
    }

    static void createTopic(String topic, int partitions) {
        try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.<String, Object>of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)))
                    .all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
