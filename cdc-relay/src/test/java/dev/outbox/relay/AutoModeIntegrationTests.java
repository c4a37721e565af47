package dev.outbox.relay;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;

import dev.outbox.local.LocalCredentials;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TestPostgres;
import dev.outbox.testing.TopicReader;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code relay.mode=auto} against a real PostgreSQL that cannot do logical replication (wal_level=replica): the
 * relay falls back to polling, says so in its health, and delivers everything.
 */
class AutoModeIntegrationTests {

    @Test
    void fallsBackToPollingWhenLogicalReplicationIsUnavailable() throws Exception {
        try (TestPostgres replicaOnly = TestPostgres.start(false, Map.of("wal_level", "replica"))) {
            SharedInfra.createDatabases(replicaOnly, "payments");
            OutboxRows.migrate(
                    replicaOnly.jdbcUrl("payments"),
                    LocalCredentials.POSTGRES.user(),
                    LocalCredentials.POSTGRES.password());
            String suffix = "auto" + Long.toHexString(System.nanoTime());
            int port = Ports.free();
            Map<String, String> env =
                    RelayFixtures.relayEnv("payments", SharedInfra.kafka().bootstrapServers(), suffix, port);
            env.put("RELAY_DB_PORT", String.valueOf(replicaOnly.port()));
            String[] args = java.util.stream.Stream.concat(
                            java.util.stream.Stream.of(RelayFixtures.asArgs(env)),
                            java.util.stream.Stream.of("--relay.mode=auto"))
                    .toArray(String[]::new);

            try (ConfigurableApplicationContext relay =
                            RelayApplication.builder().run(args);
                    Connection c = replicaOnly.connect("payments")) {
                OutboxRows.insert(
                        new DriverManagerDataSource(
                                replicaOnly.jdbcUrl("payments"),
                                LocalCredentials.POSTGRES.user(),
                                LocalCredentials.POSTGRES.password()),
                        50,
                        1);
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    var rs = c.createStatement()
                            .executeQuery("SELECT count(*) FROM outbox_delivery WHERE NOT published");
                    rs.next();
                    return rs.getLong(1) == 0;
                });
                String health = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                                        .header("Authorization", "Bearer local-admin-token")
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                assertThat(health).contains("\"active\":\"polling\"", "wal_level is replica, not logical");
                assertThat(TopicReader.untilDistinct(
                                SharedInfra.kafka().adminClientProperties(),
                                "t-" + suffix + ".payment.events",
                                50,
                                Duration.ofSeconds(30)))
                        .hasSize(50);
            }
        }
    }
}
