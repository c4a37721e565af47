package dev.outbox.system;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.accounting.OperatorCli;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reconcile job on a live pipeline (API, CDC relay, consumer with the job on, as its own read-only roles), after
 * three faults injected from outside: an event's record deleted from the topic (deleteRecords) before the consumer read
 * it, an outbox row dead-lettered by hand, and a ledger entry deleted by hand. The first window that covers them lists
 * exactly those three events in their verdicts and the payment whose ledger is off, every other event applied once; the
 * endpoint (admin token), the command line and the metrics say so, and the alert rule fires on the metrics as scraped.
 */
class ReconcileIntegrationTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ROLE = "reconcile_it";
    private static final String ROLE_PASSWORD = "reconcile-it-password";
    private static final Duration WINDOW = Duration.ofSeconds(2);
    private static final Duration OBJECTIVE = Duration.ofSeconds(12);

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theFirstWindowOverThreeFaultsListsExactlyThoseEventsInTheirVerdicts(@TempDir Path dir) throws Exception {
        String suffix = "rc" + Long.toHexString(System.nanoTime());
        String payments = SharedInfra.freshDatabase("payments");
        String accounting = SharedInfra.freshDatabase("accounting");
        String topic = "t-" + suffix + ".payment.events";
        OutboxRows.migrate(
                SharedInfra.postgres().jdbcUrl(payments),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password());
        JdbcClient paymentsDb = EventFixtures.jdbc(payments);
        JdbcClient ledgerDb = EventFixtures.jdbc(accounting);
        loginRole(paymentsDb);

        List<UUID> paid = new ArrayList<>();
        UUID deadLettered;
        ConfigurableApplicationContext api = new SpringApplicationBuilder(PaymentsApplication.class)
                .run(
                        "--server.port=0",
                        "--management.server.port=0",
                        "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(payments),
                        "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                        "--spring.datasource.password=" + LocalCredentials.POSTGRES.password());
        try (api) {
            String base = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port");
            try (ConfigurableApplicationContext relay = relay(payments, suffix)) {
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> paymentsDb
                                        .sql("SELECT count(*) FROM pg_replication_slots WHERE active")
                                        .query(Long.class)
                                        .single()
                                == 1);
                // fault 1: the first record on the topic, deleted before any consumer read it
                paid.add(pay(base, "p0-" + suffix, "10.00"));
                ConsumerRecord<String, String> first =
                        EventFixtures.read(topic, 1, Duration.ofSeconds(60)).get(0);
                assertThat(first.offset()).isZero();
                try (Admin admin = Admin.create(SharedInfra.kafka().adminClientProperties())) {
                    admin.deleteRecords(Map.of(
                                    new TopicPartition(topic, first.partition()), RecordsToDelete.beforeOffset(1)))
                            .all()
                            .get();
                }
                for (int i = 1; i <= 12; i++) {
                    paid.add(pay(base, "p" + i + "-" + suffix, (10 + i) + ".00"));
                }
                refund(base, paid.get(3), "r-" + suffix, "4.00");
                assertThat(EventFixtures.read(topic, 13, Duration.ofSeconds(60)))
                        .hasSize(13);
            }
            // fault 2: with the relay stopped, a committed event dead-lettered by hand before anything published it
            deadLettered = pay(base, "dead-" + suffix, "99.00");
            paymentsDb
                    .sql("UPDATE outbox_messages SET dead_lettered_at = now(), last_error = 'by the test'"
                            + " WHERE aggregate_id = :payment")
                    .param("payment", deadLettered)
                    .update();
        }
        UUID lostEvent = eventOf(paymentsDb, paid.get(0), 1);
        UUID deadEvent = eventOf(paymentsDb, deadLettered, 1);
        UUID unappliedEvent = eventOf(paymentsDb, paid.get(5), 1);
        long events = paymentsDb
                .sql("SELECT count(*) FROM outbox_messages")
                .query(Long.class)
                .single();

        try (ConfigurableApplicationContext consumer =
                AccountingApplication.builder().run(withTheJob(accounting, topic, suffix, payments))) {
            // fault 3: an applied event's ledger entry deleted by hand, long before the objective has passed
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> ledgerDb.sql("SELECT count(*) FROM ledger_entries")
                                    .query(Long.class)
                                    .single()
                            == events - 2);
            assertThat(ledgerDb.sql("DELETE FROM ledger_entries WHERE event_id = :event")
                            .param("event", unappliedEvent)
                            .update())
                    .isOne();

            String port = consumer.getEnvironment().getProperty("local.server.port");
            JsonNode status = await().atMost(OBJECTIVE.plus(Duration.ofSeconds(60)))
                    .until(
                            () -> reconcileStatus(port),
                            s -> s.path("state").path("lastWindow").isObject());
            JsonNode window = status.path("state").path("lastWindow");
            // the first window judged covers every event (all committed before the job started): the faults were
            // reported by the first window that could see them
            assertThat(window.path("counts").path("APPLIED").asLong()).isEqualTo(events - 3);
            Map<String, String> verdicts = new LinkedHashMap<>();
            window.path("problems")
                    .forEach(p -> verdicts.put(
                            p.path("eventId").asString(), p.path("verdict").asString()));
            assertThat(verdicts)
                    .containsExactlyInAnyOrderEntriesOf(Map.of(
                            lostEvent.toString(), "MISSING_ON_TOPIC",
                            deadEvent.toString(), "DEAD_LETTERED_BY_RELAY",
                            unappliedEvent.toString(), "ON_TOPIC_NOT_APPLIED"));
            JsonNode unapplied = problem(window, unappliedEvent);
            assertThat(unapplied.path("paymentId").asString())
                    .isEqualTo(paid.get(5).toString());
            assertThat(unapplied.path("lastSeen").asString())
                    .startsWith("topic: " + topic + " ")
                    .endsWith("inbox: taken, no ledger entry");
            assertThat(problem(window, lostEvent).path("lastSeen").asString()).contains("not on the topic");
            assertThat(window.path("mismatches")).hasSize(1);
            assertThat(window.path("mismatches").get(0).path("paymentId").asString())
                    .isEqualTo(paid.get(5).toString());
            assertThat(status.path("state").path("problems")).hasSize(3);

            // the command line prints the same as JSON
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit = OperatorCli.run(
                    List.of("reconcile", "status", "--url", "http://127.0.0.1:" + port),
                    Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    System.err);
            assertThat(exit).isZero();
            JsonNode printed = JSON.readTree(out.toString(StandardCharsets.UTF_8));
            assertThat(printed.path("state").path("problems")).hasSize(3);

            // the metrics, as Prometheus scrapes them, fire the alert
            String management = consumer.getEnvironment().getProperty("local.management.port");
            String scraped = get("http://127.0.0.1:" + management + "/actuator/prometheus")
                    .body();
            assertThat(scrapedValue(scraped, "reconcile_open_problems", "missing_on_topic"))
                    .isEqualTo(1);
            assertThat(scrapedValue(scraped, "reconcile_open_problems", "on_topic_not_applied"))
                    .isEqualTo(1);
            assertThat(scrapedValue(scraped, "reconcile_open_problems", "dead_lettered_by_relay"))
                    .isEqualTo(1);
            assertThat(scrapedValue(scraped, "reconcile_open_problems", "applied_more_than_once"))
                    .isZero();
            assertThat(scrapedValue(scraped, "reconcile_balance_mismatches", null))
                    .isEqualTo(1);
            assertThat(scrapedValue(scraped, "reconcile_leader", null)).isEqualTo(1);
            assertAlerts(dir, scraped, "EventsLostOrAppliedTwice");

            // one job at a time: a second consumer with the job on stands by until the first one is gone
            try (ConfigurableApplicationContext second =
                    AccountingApplication.builder().run(withTheJob(accounting, topic, suffix, payments))) {
                String standby = second.getEnvironment().getProperty("local.server.port");
                await().during(WINDOW.multipliedBy(2))
                        .atMost(WINDOW.multipliedBy(4))
                        .until(() -> !reconcileStatus(standby).path("leader").asBoolean());
                consumer.close();
                JsonNode takenOver = await().atMost(OBJECTIVE.plus(Duration.ofSeconds(60)))
                        .until(
                                () -> reconcileStatus(standby),
                                s -> s.path("state").path("lastWindow").isObject());
                assertThat(takenOver.path("leader").asBoolean()).isTrue();
                assertThat(takenOver.path("state").path("problems")).hasSize(3);
            }
        }
    }

    /** A series' value in a Prometheus scrape, by name and (when not null) verdict label. */
    private static double scrapedValue(String scraped, String name, String verdict) {
        return scraped.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .filter(line -> verdict == null || line.contains("verdict=\"" + verdict + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " " + verdict + " in the scrape"));
    }

    /**
     * promtool evaluates the rules file over the reconcile series as scraped (labelled as Prometheus would, held for
     * ten minutes): {@code firing} fires with the rules file's labels and annotations, every other reconcile alert is
     * silent.
     */
    @SuppressWarnings("unchecked")
    private static void assertAlerts(Path dir, String scraped, String firing) throws Exception {
        List<Map<String, String>> input = new ArrayList<>();
        for (String line : scraped.lines().toList()) {
            if (line.startsWith("reconcile_") && !line.endsWith(" NaN")) {
                int space = line.lastIndexOf(' ');
                String series = line.substring(0, space);
                String job = "job=\"accounting-consumer\",instance=\"accounting-consumer:9082\"";
                series = series.contains("{") ? series.replace("{", "{" + job + ",") : series + "{" + job + "}";
                input.add(Map.of("series", series, "values", line.substring(space + 1) + "x10"));
            }
        }
        Map<String, Map<String, Object>> rules = MonitoringFiles.alertRules();
        List<Map<String, Object>> checks = new ArrayList<>();
        for (String alert : List.of("EventsLostOrAppliedTwice", "ReconcileBehind")) {
            Map<String, Object> rule = rules.get(alert);
            List<Map<String, Object>> expected = alert.equals(firing)
                    ? List.of(Map.of("exp_labels", rule.get("labels"), "exp_annotations", rule.get("annotations")))
                    : List.of();
            checks.add(Map.of("eval_time", "10m", "alertname", alert, "exp_alerts", expected));
        }
        Map<String, Object> file = Map.of(
                "rule_files",
                        List.of(MonitoringFiles.alertsFile().toAbsolutePath().toString()),
                "evaluation_interval", "1m",
                "tests", List.of(Map.of("interval", "1m", "input_series", input, "alert_rule_test", checks)));
        Path path = Files.writeString(dir.resolve("reconcile-alerts.yml"), new Yaml().dump(file));
        assertThat(MonitoringConfigurationTests.promtool("test", "rules", path.toString()))
                .contains("SUCCESS");
    }

    private JsonNode reconcileStatus(String port) throws Exception {
        HttpResponse<String> response = get("http://127.0.0.1:" + port + "/admin/reconcile");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static JsonNode problem(JsonNode window, UUID event) {
        for (JsonNode p : window.path("problems")) {
            if (p.path("eventId").asString().equals(event.toString())) {
                return p;
            }
        }
        throw new AssertionError("no problem listed for " + event);
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Authorization", "Bearer local-admin-token")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static ConfigurableApplicationContext relay(String payments, String suffix) {
        return RelayApplication.builder()
                .run(
                        "--server.port=" + Ports.free(),
                        "--relay.db.host=" + SharedInfra.postgres().host(),
                        "--relay.db.port=" + SharedInfra.postgres().port(),
                        "--relay.db.name=" + payments,
                        "--relay.kafka.bootstrap-servers=" + SharedInfra.kafka().bootstrapServers(),
                        "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
                        "--relay.cdc.slot-name=slot_" + suffix,
                        "--relay.cdc.offsets-topic=offsets-" + suffix);
    }

    /** A consumer of the test's topic with the reconcile job on, as the job's own login role. */
    private static String[] withTheJob(String accounting, String topic, String suffix, String payments) {
        return EventFixtures.consumerArgs(
                accounting,
                topic,
                "rc-" + suffix,
                "--reconcile.enabled=true",
                "--reconcile.window=" + WINDOW.toMillis() + "ms",
                "--reconcile.objective=" + OBJECTIVE.toMillis() + "ms",
                "--reconcile.payments-url=" + SharedInfra.postgres().jdbcUrl(payments),
                "--reconcile.payments-username=" + ROLE,
                "--reconcile.payments-password=" + ROLE_PASSWORD,
                "--reconcile.accounting-username=" + ROLE,
                "--reconcile.accounting-password=" + ROLE_PASSWORD);
    }

    /** The job's login role, a member of both read-only group roles (as an operator creates it). */
    private static void loginRole(JdbcClient postgres) {
        postgres.sql("""
                DO $$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'accounting_reconciler') THEN
                        CREATE ROLE accounting_reconciler NOLOGIN;
                    END IF;
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN
                        CREATE ROLE %s LOGIN PASSWORD '%s';
                    END IF;
                END
                $$""".formatted(ROLE, ROLE, ROLE_PASSWORD)).update();
        postgres.sql("GRANT payments_reconciler, accounting_reconciler TO " + ROLE)
                .update();
    }

    private static UUID eventOf(JdbcClient payments, UUID payment, long version) {
        return payments.sql("SELECT id FROM outbox_messages WHERE aggregate_id = :payment AND aggregate_version = :v")
                .param("payment", payment)
                .param("v", version)
                .query(UUID.class)
                .single();
    }

    private UUID pay(String base, String key, String amount) throws Exception {
        HttpResponse<String> response =
                post(base + "/payments", key, "{\"amount\":\"" + amount + "\",\"currency\":\"EUR\"}");
        return UUID.fromString(JSON.readTree(response.body()).get("id").asString());
    }

    private void refund(String base, UUID payment, String key, String amount) throws Exception {
        post(base + "/payments/" + payment + "/refunds", key, "{\"amount\":\"" + amount + "\"}");
    }

    private HttpResponse<String> post(String url, String key, String body) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Authorization", "Bearer local-key-client-a")
                        .header("Idempotency-Key", key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return response;
    }
}
