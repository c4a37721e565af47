package dev.outbox.relay.cdc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import dev.outbox.relay.publish.PublishProperties;
import dev.outbox.testing.Ports;
import io.debezium.connector.postgresql.PostgresConnector;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine's configuration, without an engine: what the operator sets reaches it, and wins. */
class DebeziumSettingsTests {

    static final DatabaseProperties DB = new DatabaseProperties("db1", 5433, "", "payments", "relay", "secret");

    @Test
    void theKafkaClientsSaslSettingsBecomeTopLevelEngineProperties() {
        Properties p = DebeziumSettings.of(
                cdc(Map.of()),
                DB,
                kafka(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512")));
        assertThat(p)
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("bootstrap.servers", "k1:9092")
                .containsEntry("offset.storage.topic", "offsets")
                .containsEntry("slot.name", "slot_a")
                .containsEntry("database.port", "5433")
                .containsEntry("heartbeat.interval.ms", "10000");
    }

    @Test
    void anOperatorsDebeziumSettingWinsOverTheRelaysOwn() {
        Properties p =
                DebeziumSettings.of(cdc(Map.of("max.batch.size", "512", "slot.max.retries", "3")), DB, kafka(Map.of()));
        assertThat(p).containsEntry("max.batch.size", "512").containsEntry("slot.max.retries", "3");
        assertThat(DebeziumSettings.of(cdc(Map.of()), DB, kafka(Map.of())))
                .containsEntry("max.batch.size", "2048")
                .containsEntry("slot.max.retries", "30")
                .doesNotContainKey("security.protocol");
    }

    /** The engine validates these settings before every start: Debezium's connector connects to do it, the relay's not. */
    @Test
    void debeziumsConnectorConnectsToValidateAndTheRelaysDoesNot() {
        Map<String, String> settings = settings(Map.of(), Ports.free());

        assertThat(errors(new PostgresConnector(), settings))
                .as("Debezium's connector opens a connection, refused here")
                .containsKey("database.hostname");
        assertThat(errors(new RelayPostgresConnector(), settings)).isEmpty();
        assertThat(settings).containsEntry("connector.class", RelayPostgresConnector.class.getName());
        assertThat(new RelayPostgresConnector().taskClass()).isEqualTo(new PostgresConnector().taskClass());
    }

    @Test
    void theRelaysConnectorStillValidatesEveryField() {
        assertThat(errors(new RelayPostgresConnector(), settings(Map.of("slot.name", "Not A Slot"), Ports.free())))
                .containsOnlyKeys("slot.name");
    }

    private static Map<String, List<String>> errors(Connector connector, Map<String, String> settings) {
        return connector.validate(settings).configValues().stream()
                .filter(v -> !v.errorMessages().isEmpty())
                .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
    }

    private static Map<String, String> settings(Map<String, String> debezium, int port) {
        Properties p = DebeziumSettings.of(
                cdc(debezium),
                new DatabaseProperties("127.0.0.1", port, "", "payments", "relay", "secret"),
                kafka(Map.of()));
        return p.stringPropertyNames().stream().collect(Collectors.toMap(k -> k, p::getProperty));
    }

    private static CdcProperties cdc(Map<String, String> debezium) {
        return new CdcProperties(
                "slot_a",
                "pub_a",
                "offsets",
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                4,
                Duration.ofSeconds(1),
                debezium);
    }

    private static PublishProperties kafka(Map<String, String> client) {
        return new PublishProperties(
                "k1:9092", dev.outbox.contract.Topics.DEFAULT_PATTERN, Duration.ofSeconds(15), client);
    }
}
