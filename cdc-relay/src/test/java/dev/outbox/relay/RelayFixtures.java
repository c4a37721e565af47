package dev.outbox.relay;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.infra.PostgresServer;
import dev.outbox.infra.SharedInfra;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.flywaydb.core.Flyway;

/**
 * Shared by the relay's integration tests: a migrated payments database on the shared PostgreSQL, outbox rows
 * written the way payments-api writes them, the relay's environment, and a reader for the topic.
 */
final class RelayFixtures {

    private RelayFixtures() {
    }

    /** A fresh database migrated by payments-api's own Flyway migrations. */
    static String paymentsDatabase() {
        String name = SharedInfra.freshDatabase("payments");
        Flyway.configure()
                .dataSource(SharedInfra.postgres().jdbcUrl(name), PostgresServer.USER, PostgresServer.PASSWORD)
                .locations("classpath:db/payments")
                .load()
                .migrate();
        return name;
    }

    /** The relay's configuration for one test: its own database, slot, offsets topic and event topic. */
    static Map<String, String> relayEnv(String database, String kafka, String suffix, int httpPort) {
        Map<String, String> env = new HashMap<>();
        env.put("RELAY_DB_HOST", "127.0.0.1");
        env.put("RELAY_DB_PORT", String.valueOf(SharedInfra.postgres().port()));
        env.put("RELAY_DB_NAME", database);
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka);
        env.put("RELAY_CDC_SLOT", "slot_" + suffix);
        env.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + suffix);
        env.put("RELAY_TOPIC_PATTERN", "t-" + suffix + ".{aggregateType}.events");
        env.put("RELAY_HTTP_PORT", String.valueOf(httpPort));
        return env;
    }

    /** The same settings as Spring properties, for a relay started in this JVM. */
    static String[] asArgs(Map<String, String> env) {
        return env.entrySet().stream().map(e -> "--" + switch (e.getKey()) {
            case "RELAY_DB_HOST" -> "relay.db.host";
            case "RELAY_DB_PORT" -> "relay.db.port";
            case "RELAY_DB_NAME" -> "relay.db.name";
            case "KAFKA_BOOTSTRAP_SERVERS" -> "relay.kafka.bootstrap-servers";
            case "RELAY_CDC_SLOT" -> "relay.cdc.slot-name";
            case "RELAY_CDC_OFFSETS_TOPIC" -> "relay.cdc.offsets-topic";
            case "RELAY_TOPIC_PATTERN" -> "relay.kafka.topic-pattern";
            case "RELAY_HTTP_PORT" -> "server.port";
            default -> throw new IllegalArgumentException(e.getKey());
        } + "=" + e.getValue()).toArray(String[]::new);
    }

    static void awaitSlotActive(String database, String slot) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try (Connection c = SharedInfra.postgres().connect(database);
                    PreparedStatement s = c.prepareStatement(
                            "SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
                s.setString(1, slot);
                var rs = s.executeQuery();
                return rs.next() && rs.getBoolean(1);
            }
        });
    }

    record Event(UUID id, UUID aggregateId, long version) {
    }

    /** Writes outbox rows exactly as payments-api does, {@code perAggregate} consecutive versions each. */
    static List<Event> insertEvents(String database, int aggregates, int perAggregate) throws SQLException {
        List<Event> events = new ArrayList<>();
        try (Connection c = SharedInfra.postgres().connect(database)) {
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement("""
                    INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                                 schema_version, payload, trace_parent, occurred_at)
                    VALUES (?, 'payment', ?, ?, ?, 1, CAST(? AS jsonb), ?, ?)""")) {
                for (int a = 0; a < aggregates; a++) {
                    UUID aggregate = UUID.randomUUID();
                    for (int v = 1; v <= perAggregate; v++) {
                        UUID id = UUID.randomUUID();
                        s.setObject(1, id);
                        s.setObject(2, aggregate);
                        s.setLong(3, v);
                        s.setString(4, v == 1 ? "PaymentCreated" : "PaymentRefunded");
                        s.setString(5, "{\"paymentId\":\"" + aggregate + "\",\"amount\":\"1.00\",\"currency\":\"EUR\"}");
                        s.setString(6, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
                        s.setTimestamp(7, Timestamp.from(Instant.now()));
                        s.addBatch();
                        events.add(new Event(id, aggregate, v));
                    }
                }
                s.executeBatch();
            }
            c.commit();
        }
        return events;
    }

    static long count(String database, String sql) {
        try (Connection c = SharedInfra.postgres().connect(database); var s = c.createStatement()) {
            var rs = s.executeQuery(sql);
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> idsOf(List<Event> events) {
        return events.stream().map(e -> e.id().toString()).toList();
    }

    /** Reads a topic from the beginning until every one of {@code ids} was seen (or the timeout passed). */
    static List<ConsumerRecord<String, String>> readUntilAll(String bootstrap, String topic,
            java.util.Collection<String> ids, Duration timeout) {
        return read(bootstrap, topic, seen -> seen.containsAll(ids), timeout);
    }

    /** Reads a topic from the beginning until {@code distinctIds} different event ids were seen. */
    static List<ConsumerRecord<String, String>> readUntil(String bootstrap, String topic, int distinctIds,
            Duration timeout) {
        return read(bootstrap, topic, seen -> seen.size() >= distinctIds, timeout);
    }

    private static List<ConsumerRecord<String, String>> read(String bootstrap, String topic,
            java.util.function.Predicate<java.util.Set<String>> done, Duration timeout) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers", bootstrap,
                "group.id", "reader-" + UUID.randomUUID(),
                "auto.offset.reset", "earliest",
                "enable.auto.commit", "false",
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        java.util.Set<String> ids = new java.util.HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.test(ids) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    records.add(r);
                    ids.add(header(r, "id"));
                }
            }
        }
        return records;
    }

    static String header(ConsumerRecord<String, String> record, String name) {
        var h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
