package dev.outbox.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The relay's configuration for one test, and what its tests read back: rows' state and the topic. */
public final class RelayFixtures {

    private RelayFixtures() {}

    /** The relay's configuration for one test: its own database, slot, offsets topic and event topic. */
    public static Map<String, String> relayEnv(String database, String kafka, String suffix, int httpPort) {
        Map<String, String> env = new HashMap<>();
        env.put("RELAY_DB_HOST", SharedInfra.postgres().host());
        env.put("RELAY_DB_PORT", String.valueOf(SharedInfra.postgres().port()));
        env.put("RELAY_DB_NAME", database);
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka);
        env.put("RELAY_CDC_SLOT", "slot_" + suffix);
        env.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + suffix);
        env.put("RELAY_TOPIC_PATTERN", "t-" + suffix + ".{aggregateType}.events");
        env.put("RELAY_HTTP_PORT", String.valueOf(httpPort));
        return env;
    }

    /** The same settings as Spring properties, for a relay started in this JVM (the placeholders read them). */
    public static String[] asArgs(Map<String, String> env) {
        return env.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
    }

    public static void awaitSlotActive(String database, String slot) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    try (Connection c = SharedInfra.postgres().connect(database);
                            PreparedStatement s =
                                    c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
                        s.setString(1, slot);
                        var rs = s.executeQuery();
                        return rs.next() && rs.getBoolean(1);
                    }
                });
    }

    public static long count(String database, String sql) {
        try (Connection c = SharedInfra.postgres().connect(database);
                var s = c.createStatement()) {
            var rs = s.executeQuery(sql);
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long pending(String database) {
        return count(database, "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL");
    }

    /** Reads a topic of the shared broker until every one of {@code ids} was seen (or the timeout passed). */
    static List<ConsumerRecord<String, String>> readUntilAll(String topic, Collection<String> ids, Duration timeout) {
        return TopicReader.untilIds(SharedInfra.kafka().adminClientProperties(), topic, ids, timeout);
    }

    static List<ConsumerRecord<String, String>> readUntilAll(
            Map<String, Object> client, String topic, Collection<String> ids, Duration timeout) {
        return TopicReader.untilIds(client, topic, ids, timeout);
    }

    /**
     * Reads a topic until every written event is there, and asserts it holds exactly those events (an event sent
     * again keeps its id): nothing lost, nothing unknown. Returns every record read, copies included.
     */
    static List<ConsumerRecord<String, String>> assertTopicHoldsExactly(
            Map<String, Object> client, String topic, List<OutboxEvent> written, Duration timeout) {
        List<String> ids = OutboxRows.ids(written);
        List<ConsumerRecord<String, String>> onTopic = TopicReader.untilIds(client, topic, ids, timeout);
        assertThat(Set.copyOf(ids)).as("one id per written event").hasSize(ids.size());
        assertThat(onTopic.stream().map(TopicReader::id).collect(Collectors.toSet()))
                .as("nothing lost, nothing unknown")
                .isEqualTo(Set.copyOf(ids));
        return onTopic;
    }
}
