package dev.outbox.accounting;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventTypes;
import dev.outbox.local.LocalCredentials;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Events written to Kafka exactly as the relay writes them, and the consumer's configuration for a test. */
public final class EventFixtures {

    private EventFixtures() {}

    /** An event as the relay publishes it: the contract's envelope as headers, the payload as the value. */
    public record Event(UUID id, UUID paymentId, long version, String type, String payload, String traceparent) {

        public static Event created(UUID paymentId, String amount, String currency) {
            return new Event(
                    UUID.randomUUID(),
                    paymentId,
                    1,
                    EventTypes.PAYMENT_CREATED,
                    """
                    {"paymentId":"%s","clientId":"client-a","amount":"%s","currency":"%s",\
                    "occurredAt":"2026-12-02T10:00:00Z"}""".formatted(paymentId, amount, currency),
                    null);
        }

        public static Event refunded(UUID paymentId, long version, String amount, String currency) {
            return new Event(
                    UUID.randomUUID(),
                    paymentId,
                    version,
                    EventTypes.PAYMENT_REFUNDED,
                    """
                    {"paymentId":"%s","refundId":"%s","amount":"%s","currency":"%s","refundedTotal":"0",\
                    "occurredAt":"2026-12-02T10:00:00Z"}""".formatted(paymentId, UUID.randomUUID(), amount, currency),
                    null);
        }

        public Event withTraceparent(String value) {
            return new Event(id, paymentId, version, type, payload, value);
        }
    }

    public static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(
                "bootstrap.servers", SharedInfra.kafka().bootstrapServers(),
                "key.serializer", StringSerializer.class.getName(),
                "value.serializer", StringSerializer.class.getName(),
                "acks", "all"));
    }

    /** The record as the relay writes it: key = payment id, value = payload, headers = the contract's envelope. */
    /** The event as the relay publishes it: the envelope's headers, then the CloudEvents headers. */
    public static ProducerRecord<String, String> record(String topic, Integer partition, Event e) {
        EventEnvelope envelope = new EventEnvelope(
                e.id(), e.type(), EventTypes.SCHEMA_VERSION, e.version(), Instant.now(), e.traceparent());
        String key = e.paymentId().toString();
        Headers headers = new EventRecord(topic, key, envelope, e.payload().getBytes(StandardCharsets.UTF_8))
                .toProducerRecord()
                .headers();
        return new ProducerRecord<>(topic, partition, key, e.payload(), headers);
    }

    public static String accountingDatabase() {
        return SharedInfra.freshDatabase("accounting");
    }

    public static JdbcClient jdbc(String database) {
        return JdbcClient.create(new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(database),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password()));
    }

    /** Spring arguments for a consumer in this JVM. */
    public static String[] consumerArgs(String database, String topic, String group, String... extra) {
        List<String> args = new ArrayList<>(
                List.of(
                        "--server.port=0",
                        "--management.server.port=0",
                        "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(database),
                        "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                        "--spring.datasource.password=" + LocalCredentials.POSTGRES.password(),
                        "--spring.kafka.bootstrap-servers="
                                + SharedInfra.kafka().bootstrapServers(),
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

    /** Everything on a topic of the shared broker, up to its end (waiting up to {@code timeout} for it to appear). */
    public static List<ConsumerRecord<String, String>> read(String topic, int atLeast, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ConsumerRecord<String, String>> records = List.of();
        while (records.size() < atLeast && System.nanoTime() < deadline) {
            records = TopicReader.toEnd(SharedInfra.kafka().adminClientProperties(), topic, Duration.ofSeconds(10));
        }
        return records;
    }

    public static void createTopic(String topic, int partitions) {
        try (var admin = org.apache.kafka.clients.admin.Admin.create(
                Map.<String, Object>of("bootstrap.servers", SharedInfra.kafka().bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
