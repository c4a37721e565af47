package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every metric the alert rules and the Grafana dashboards name is one the running services export: the three
 * services run in this JVM (the relay in auto mode, which exports what cdc mode does and its fallback gauge), one
 * payment goes through, and each /actuator/prometheus is scraped as Prometheus will, with the token of
 * docker/prometheus/prometheus.yml.
 */
class MonitoringIntegrationTests {

    /** Series Prometheus makes itself for every target, which no service exports. */
    static final Set<String> SYNTHETIC = Set.of("up");

    final HttpClient http = HttpClient.newHttpClient();

    @Test
    @SuppressWarnings("unchecked")
    void everyMetricOfTheAlertsAndDashboardsIsExportedByARunningService() throws Exception {
        String suffix = "mon" + Long.toHexString(System.nanoTime());
        String payments = SharedInfra.freshDatabase("payments");
        String accounting = SharedInfra.freshDatabase("accounting");
        String topic = "t-" + suffix + ".payment.events";
        OutboxRows.migrate(
                SharedInfra.postgres().jdbcUrl(payments),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password());
        Map<String, Object> scrape = ((List<Map<String, Object>>)
                        MonitoringFiles.yaml(MonitoringFiles.docker().resolve("prometheus/prometheus.yml"))
                                .get("scrape_configs"))
                .get(0);
        String token = (String) ((Map<String, Object>) scrape.get("authorization")).get("credentials");
        int relayPort = Ports.free();

        try (ConfigurableApplicationContext relay = RelayApplication.builder()
                        .run(
                                "--server.port=" + relayPort,
                                "--relay.mode=auto",
                                "--relay.db.host=" + SharedInfra.postgres().host(),
                                "--relay.db.port=" + SharedInfra.postgres().port(),
                                "--relay.db.name=" + payments,
                                "--relay.kafka.bootstrap-servers="
                                        + SharedInfra.kafka().bootstrapServers(),
                                "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
                                "--relay.cdc.slot-name=slot_" + suffix,
                                "--relay.cdc.offsets-topic=offsets-" + suffix);
                ConfigurableApplicationContext api = new SpringApplicationBuilder(PaymentsApplication.class)
                        .run(
                                "--server.port=0",
                                "--management.server.port=0",
                                "--spring.datasource.url="
                                        + SharedInfra.postgres().jdbcUrl(payments),
                                "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                                "--spring.datasource.password=" + LocalCredentials.POSTGRES.password());
                ConfigurableApplicationContext consumer = AccountingApplication.builder()
                        .run(EventFixtures.consumerArgs(
                                accounting,
                                topic,
                                "mon-" + suffix,
                                // the reconcile job on, as compose runs it (the superuser here: its roles are tested
                                // apart)
                                "--reconcile.enabled=true",
                                "--reconcile.payments-url="
                                        + SharedInfra.postgres().jdbcUrl(payments),
                                "--reconcile.payments-username=" + LocalCredentials.POSTGRES.user(),
                                "--reconcile.payments-password=" + LocalCredentials.POSTGRES.password(),
                                "--reconcile.accounting-username=" + LocalCredentials.POSTGRES.user(),
                                "--reconcile.accounting-password=" + LocalCredentials.POSTGRES.password()))) {
            JdbcClient ledger = EventFixtures.jdbc(accounting);
            JdbcClient paymentsDb = EventFixtures.jdbc(payments);
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> paymentsDb
                                    .sql("SELECT count(*) FROM pg_replication_slots WHERE active")
                                    .query(Long.class)
                                    .single()
                            == 1);
            HttpResponse<String> created = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                    + api.getEnvironment().getProperty("local.server.port") + "/payments"))
                            .header("Authorization", "Bearer local-key-client-a")
                            .header("Idempotency-Key", "monitoring-" + suffix)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"3.50\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> ledger.sql("SELECT count(*) FROM ledger_entries")
                                    .query(Long.class)
                                    .single()
                            == 1);

            Map<String, Integer> managementPorts = Map.of(
                    "payments-api",
                    Integer.parseInt(api.getEnvironment().getProperty("local.management.port")),
                    "cdc-relay",
                    relayPort,
                    "accounting-consumer",
                    Integer.parseInt(consumer.getEnvironment().getProperty("local.management.port")));
            // the consumer's fetch metrics (its lag among them) appear once it has fetched; gauges are read at scrape
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Set<String> exported = new TreeSet<>(SYNTHETIC);
                managementPorts.values().forEach(port -> exported.addAll(exportedNames(port, token)));
                Map<String, Set<String>> missing = new TreeMap<>();
                MonitoringFiles.alerts().forEach((name, expr) -> missing(exported, expr, "alert " + name, missing));
                MonitoringFiles.dashboardQueries()
                        .forEach((name, expr) -> missing(exported, expr, "dashboard " + name, missing));
                assertThat(missing).as("metrics no running service exports").isEmpty();
            });
        }
    }

    private static void missing(Set<String> exported, String expr, String where, Map<String, Set<String>> missing) {
        Set<String> names = MonitoringFiles.metricNames(expr);
        assertThat(names).as(where + " selects a metric: " + expr).isNotEmpty();
        names.stream()
                .filter(n -> !exported.contains(n))
                .forEach(n -> missing.computeIfAbsent(n, k -> new TreeSet<>()).add(where));
    }

    /** The sample names of one scrape, as Prometheus stores them (counters with _total, timers with _bucket...). */
    private Set<String> exportedNames(int port, String token) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                            .header("Authorization", "Bearer " + token)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("scrape of port " + port).isEqualTo(200);
            Set<String> names = new TreeSet<>();
            response.body()
                    .lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .map(l -> l.split("[{ ]", 2)[0])
                    .forEach(names::add);
            return names;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
