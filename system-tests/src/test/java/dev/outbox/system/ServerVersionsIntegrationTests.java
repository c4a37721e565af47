package dev.outbox.system;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.outbox.local.PostgresServer;
import dev.outbox.testing.SharedInfra;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One version of each server everywhere: compose's images are the versions the tests run, read from what runs
 * (a started PostgreSQL's server_version_num, the broker's finalized metadata.version, the Kafka jars' own version),
 * never from a copy of the numbers; the container path's images (SharedInfra) are held to the same.
 */
class ServerVersionsIntegrationTests {

    @Test
    void composeRunsThePostgresMajorVersionTheTestsRun() throws Exception {
        String tag = tags("postgres").get("postgres");
        int running;
        try (Connection c = SharedInfra.postgres().connect("postgres");
                ResultSet rs = c.createStatement().executeQuery("SHOW server_version_num")) {
            rs.next();
            running = Integer.parseInt(rs.getString(1)) / 10_000;
        }

        assertThat(tag)
                .as("compose's postgres image tag is the major version the tests run")
                .isEqualTo(String.valueOf(running));
        assertThat(PostgresServer.MAJOR_VERSION).isEqualTo(String.valueOf(running));
        assertThat(SharedInfra.POSTGRES_IMAGE).isEqualTo("postgres:" + tag);
    }

    @Test
    void composeRunsTheKafkaVersionTheTestsRun() throws Exception {
        Map<String, String> tags = tags("apache/kafka");
        String clients = AppInfoParser.getVersion();
        String broker;
        try (Admin admin = Admin.create(SharedInfra.kafka().adminClientProperties())) {
            FinalizedVersionRange level = admin.describeFeatures()
                    .featureMetadata()
                    .get()
                    .finalizedFeatures()
                    .get(MetadataVersion.FEATURE_NAME);
            broker = MetadataVersion.fromFeatureLevel(level.maxVersionLevel()).shortVersion();
        }

        assertThat(tags).as("the broker and kafka-init").containsOnlyKeys("kafka", "kafka-init");
        tags.forEach((service, tag) -> assertThat(tag)
                .as(service + "'s apache/kafka tag is the Kafka the tests run")
                .isEqualTo(clients));
        assertThat(clients).as("the running broker's metadata version").startsWith(broker + ".");
        assertThat(SharedInfra.kafkaImage()).isEqualTo("apache/kafka:" + clients);
    }

    /** Service name -> tag of every compose service running {@code image}. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> tags(String image) throws IOException {
        Map<String, Object> compose = new Yaml()
                .load(Files.readString(ComposeConfigurationTests.root().resolve("compose.yaml")));
        Map<String, String> tags = new LinkedHashMap<>();
        ((Map<String, Map<String, Object>>) compose.get("services")).forEach((name, service) -> {
            String ref = String.valueOf(service.get("image"));
            if (ref.startsWith(image + ":")) {
                tags.put(name, ref.substring(image.length() + 1));
            }
        });
        return tags;
    }
}
