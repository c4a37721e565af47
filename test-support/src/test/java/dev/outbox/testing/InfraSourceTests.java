package dev.outbox.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.jar.JarFile;

import dev.outbox.local.KafkaBroker;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.PostgresServer;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which servers the tests get, and what the container path would start, checked without a Docker engine: the
 * containers are built but never started.
 */
class InfraSourceTests {

    @Test
    void withoutARequestContainersRunWhereDockerIsReachableAndEmbeddedServersElsewhere() {
        assertThat(InfraSource.select(null, () -> true)).isEqualTo(InfraSource.TESTCONTAINERS);
        assertThat(InfraSource.select(null, () -> false)).isEqualTo(InfraSource.EMBEDDED);
        assertThat(InfraSource.select(" ", () -> false)).isEqualTo(InfraSource.EMBEDDED);
    }

    @Test
    void aRequestWinsOverTheProbe() {
        AtomicInteger probes = new AtomicInteger();
        BooleanSupplier docker = () -> probes.incrementAndGet() > 0;
        assertThat(InfraSource.select("embedded", docker)).isEqualTo(InfraSource.EMBEDDED);
        assertThat(probes).as("embedded needs no Docker, so nobody asks").hasValue(0);
        assertThat(InfraSource.select(" TestContainers ", docker)).isEqualTo(InfraSource.TESTCONTAINERS);
    }

    @Test
    void containersRequestedWithoutDockerFailAtOnceInsteadOfFallingBack() {
        assertThatThrownBy(() -> InfraSource.select("testcontainers", () -> false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no Docker engine is reachable");
    }

    @Test
    void anUnknownSourceIsRefused() {
        assertThatThrownBy(() -> InfraSource.select("docker", () -> true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("testcontainers or embedded");
    }

    @Test
    void postgresContainerIsComposesImageWithTheEmbeddedServersSettingsAndPasswordsEverywhere() {
        PostgreSQLContainer container = ContainerPostgres.definition();

        // the container's own accessor would pull the image; this is the name it is built from
        assertThat(SharedInfra.POSTGRES_IMAGE).isEqualTo("postgres:18");
        List<String> command = List.of(container.getCommandParts());
        assertThat(command.get(0)).isEqualTo("postgres");
        assertThat(options(command))
                .containsAll(List.of(
                        "wal_level=logical",
                        "max_replication_slots=20",
                        "max_wal_senders=20",
                        "max_slot_wal_keep_size=1GB",
                        "wal_sender_timeout=30s",
                        "password_encryption=scram-sha-256"))
                .as("every setting of the embedded test server, once")
                .containsExactlyElementsOf(PostgresServer.serverSettings(false).entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
        assertThat(container.getUsername()).isEqualTo(LocalCredentials.POSTGRES.user());
        assertThat(container.getPassword()).isEqualTo(LocalCredentials.POSTGRES.password());
        assertThat(container.getDatabaseName()).isEqualTo("postgres");
        assertThat(container.getEnvMap())
                .containsEntry("POSTGRES_INITDB_ARGS", "--auth-local=scram-sha-256 --auth-host=scram-sha-256")
                .containsEntry("POSTGRES_HOST_AUTH_METHOD", "scram-sha-256");
        assertThat(container.getExposedPorts()).contains(5432);
    }

    @Test
    void kafkaContainerIsTheBrokerVersionOfTheBuildWithTheEmbeddedBrokersSettings() throws Exception {
        KafkaContainer container = ContainerKafka.definition();

        // the broker jar this build runs in-process says its version in its manifest; the clients say theirs
        String broker = manifestVersion(KafkaRaftServer.class);
        assertThat(broker).matches("\\d+\\.\\d+\\.\\d+").isEqualTo(AppInfoParser.getVersion());
        assertThat(SharedInfra.kafkaImage()).isEqualTo("apache/kafka:" + broker);
        Map<String, String> env = container.getEnvMap();
        assertThat(env)
                .containsEntry("KAFKA_NUM_PARTITIONS", "3")
                .containsEntry("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "3")
                .containsEntry("KAFKA_LOG_FLUSH_INTERVAL_MESSAGES", "1")
                .containsEntry("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "true")
                .containsEntry("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
                .containsEntry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1");
        KafkaBroker.brokerSettings(false)
                .forEach((name, value) -> assertThat(env).as(name).containsEntry(ContainerKafka.variable(name), value));
    }

    @Test
    void brokerSettingsAreSpelledAsTheKafkaImageReadsThem() {
        assertThat(ContainerKafka.variable("transaction.state.log.min.isr"))
                .isEqualTo("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR");
        assertThat(ContainerKafka.variable("listener.name.x_y.scram-sha-256.sasl.jaas.config"))
                .isEqualTo("KAFKA_LISTENER_NAME_X__Y_SCRAM___SHA___256_SASL_JAAS_CONFIG");
    }

    private static String manifestVersion(Class<?> type) throws Exception {
        try (JarFile jar = new JarFile(
                Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
                        .toFile())) {
            return jar.getManifest().getMainAttributes().getValue("Version");
        }
    }

    /** The values of a command's {@code -c} options, in order. */
    private static List<String> options(List<String> command) {
        List<String> options = new ArrayList<>();
        for (int i = 1; i < command.size(); i += 2) {
            assertThat(command.get(i)).isEqualTo("-c");
            options.add(command.get(i + 1));
        }
        return options;
    }
}
