package dev.outbox.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Compose's Prometheus and Grafana as files: every alert expression and every dashboard query parses with
 * Prometheus's own parser (promtool), Prometheus scrapes each service on the management port compose gives it with a
 * token the service accepts, Grafana's dashboards use the provisioned data source, and the operations document's alert table is
 * the rules file. Whether the metrics exist is MonitoringIntegrationTests' question.
 */
class MonitoringConfigurationTests {

    /** Compose service -> its management port variable and the configuration file holding its admin digest. */
    static final Map<String, String[]> SCRAPED = Map.of(
            "payments-api",
            new String[] {"PAYMENTS_MANAGEMENT_PORT", "application.yaml", "PAYMENTS_ADMIN_TOKEN_SHA256"},
            "cdc-relay",
            new String[] {"RELAY_HTTP_PORT", "relay.yaml", "RELAY_ADMIN_TOKEN_SHA256"},
            "accounting-consumer",
            new String[] {"ACCOUNTING_MANAGEMENT_PORT", "accounting.yaml", "ACCOUNTING_ADMIN_TOKEN_SHA256"});

    @Test
    void prometheusConfigAndEveryAlertExpressionPassPromtool() throws Exception {
        Path config = MonitoringFiles.docker().resolve("prometheus/prometheus.yml");

        String out = promtool("check", "config", config.toString());

        assertThat(out)
                .contains("SUCCESS: 1 rule files found")
                .contains(MonitoringFiles.alerts().size() + " rules found");
    }

    @Test
    void everyDashboardQueryPassesPromtool(@TempDir Path dir) throws Exception {
        Map<String, String> queries = MonitoringFiles.dashboardQueries();
        assertThat(queries).isNotEmpty();
        // promtool parses expressions in rule files only: each query becomes a recording rule of a scratch file
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard-queries\n    rules:\n");
        int n = 0;
        for (String expr : queries.values()) {
            rules.append("      - record: dashboard:query_")
                    .append(n++)
                    .append("\n        expr: '")
                    .append(MonitoringFiles.withoutGrafanaVariables(expr).replace("'", "''"))
                    .append("'\n");
        }
        Path file = Files.writeString(dir.resolve("dashboard-queries.yml"), rules);

        assertThat(promtool("check", "rules", file.toString())).contains("SUCCESS: " + n + " rules found");
    }

    /**
     * Every alert fires on the condition it names and stays silent just below it: promtool evaluates the rules file
     * over series written here, at least one scenario per alert (a new alert without one fails this test), one per
     * side of an {@code or}. An alert with a {@code for} is also checked silent while its condition has held for less
     * than that. The expected labels and annotations are the rules file's own, rendered for the scenario's series.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertFiresOnItsConditionAndStaysSilentOtherwise(@TempDir Path dir) throws Exception {
        /**
         * @param pendingAt for an alert with a {@code for}: a time at which its condition holds but has not held
         *                  that long yet, so it must not fire
         */
        record Scenario(
                String alert,
                Map<String, String> firing,
                Map<String, String> quiet,
                String evalTime,
                Map<String, String> labels,
                String pendingAt) {
            /** One series of no other labels, above the threshold, and just below it. */
            static Scenario of(String alert, String series, String firing, String quiet, String evalTime) {
                return new Scenario(alert, Map.of(series, firing), Map.of(series, quiet), evalTime, Map.of(), null);
            }

            Scenario pendingAt(String time) {
                return new Scenario(alert, firing, quiet, evalTime, labels, time);
            }
        }
        String relay = "{job=\"cdc-relay\",instance=\"cdc-relay:8081\"}";
        String standby = "{job=\"cdc-relay\",instance=\"standby:8081\"}";
        String consumer = "{job=\"accounting-consumer\",instance=\"accounting-consumer:9082\"}";
        String api = "{job=\"payments-api\",instance=\"payments-api:9080\"}";
        List<Scenario> scenarios = List.of(
                Scenario.of("OutboxStuck", "outbox_oldest_pending_age_seconds" + relay, "0+30x30", "100x30", "10m")
                        .pendingAt("9m"),
                // each side of the or on its own
                new Scenario(
                        "OutboxDeadLetters",
                        Map.of(
                                "outbox_dead_letters_total" + relay,
                                "0 0 0 1x10",
                                "outbox_dead_lettered" + relay,
                                "0x13"),
                        Map.of("outbox_dead_letters_total" + relay, "0x13", "outbox_dead_lettered" + relay, "0x13"),
                        "5m",
                        Map.of(),
                        null),
                new Scenario(
                        "OutboxDeadLetters",
                        Map.of(
                                "outbox_dead_letters_total" + relay,
                                "0x13",
                                "outbox_dead_lettered" + relay,
                                "0 0 0 1x10"),
                        Map.of("outbox_dead_letters_total" + relay, "0x13", "outbox_dead_lettered" + relay, "0x13"),
                        "5m",
                        Map.of(),
                        null),
                Scenario.of(
                        "ConsumerDeadLetters", "accounting_dead_letters_total" + consumer, "0 0 0 2x10", "0x13", "5m"),
                Scenario.of(
                        "SlotRetainsWal", "outbox_cdc_slot_lag_bytes" + relay, "600000000x10", "500000000x10", "5m"),
                new Scenario(
                        "NoRelayLeader",
                        Map.of("outbox_cdc_leader" + relay, "1 0x10", "outbox_cdc_leader" + standby, "0x10"),
                        Map.of("outbox_cdc_leader" + relay, "0x10", "outbox_cdc_leader" + standby, "1x10"),
                        "5m",
                        Map.of(),
                        "2m"),
                Scenario.of("RelayFellBackToPolling", "outbox_relay_fallback" + relay, "0 0 1x10", "0x10", "5m"),
                new Scenario(
                        "OutboxClaimFloorHeldBack",
                        Map.of("outbox_claim_floor_rows" + relay, "10000+20000x30", "outbox_pending" + relay, "100x30"),
                        Map.of(
                                "outbox_claim_floor_rows" + relay,
                                "100000+20000x30",
                                "outbox_pending" + relay,
                                "10000+20000x30"),
                        "25m",
                        Map.of(),
                        "19m"),
                Scenario.of("LeasesLost", "outbox_polling_lease_lost_total" + relay, "0 0 0 1x10", "0x13", "5m"),
                Scenario.of(
                        "ParkedEventsStuck",
                        "accounting_oldest_parked_age_seconds" + consumer,
                        "0+60x10",
                        "0+25x10",
                        "8m"),
                new Scenario(
                        "EndToEndLatencyHigh",
                        latencyBuckets(consumer, "0x30", "0x30", "0+10x30"),
                        latencyBuckets(consumer, "0x30", "0+10x30", "0+10x30"),
                        "15m",
                        Map.of(),
                        "5m"),
                // each side of the or on its own; a problem that waits for an operator does not fire it
                new Scenario(
                        "EventsLostOrAppliedTwice",
                        Map.of(
                                reconcileProblems(consumer, "missing_on_topic"),
                                "0 0 1x10",
                                "reconcile_balance_mismatches" + consumer,
                                "0x12"),
                        Map.of(
                                reconcileProblems(consumer, "missing_on_topic"),
                                "0x12",
                                reconcileProblems(consumer, "dead_lettered_by_relay"),
                                "1x12",
                                "reconcile_balance_mismatches" + consumer,
                                "0x12"),
                        "5m",
                        Map.of(),
                        null),
                new Scenario(
                        "EventsLostOrAppliedTwice",
                        Map.of(
                                reconcileProblems(consumer, "applied_more_than_once"),
                                "0x12",
                                "reconcile_balance_mismatches" + consumer,
                                "0 0 2x10"),
                        Map.of(
                                reconcileProblems(consumer, "applied_more_than_once"),
                                "0x12",
                                "reconcile_balance_mismatches" + consumer,
                                "0x12"),
                        "5m",
                        Map.of(),
                        null),
                // no instance holds the job's lock; or the leader's last window is older than three objectives
                new Scenario(
                        "ReconcileBehind",
                        Map.of("reconcile_leader" + consumer, "0x30"),
                        Map.of("reconcile_leader" + consumer, "1x30"),
                        "15m",
                        Map.of(),
                        "5m"),
                new Scenario(
                        "ReconcileBehind",
                        Map.of(
                                "reconcile_leader" + consumer, "1x30",
                                "reconcile_last_window_seconds" + consumer, "0x30",
                                "reconcile_objective_seconds" + consumer, "60x30"),
                        Map.of(
                                "reconcile_leader" + consumer, "1x30",
                                "reconcile_last_window_seconds" + consumer, "0+60x30",
                                "reconcile_objective_seconds" + consumer, "60x30"),
                        "15m",
                        Map.of(),
                        "10m"),
                new Scenario(
                        "ServiceDown",
                        Map.of("up" + api, "1 0x10"),
                        Map.of("up" + api, "1 0 1 0 1 0 1 0 1 0 1"),
                        "5m",
                        Map.of("job", "payments-api", "instance", "payments-api:9080"),
                        "2m"));
        Map<String, Map<String, Object>> byName = MonitoringFiles.alertRules();
        assertThat(scenarios.stream().map(Scenario::alert).distinct())
                .as("a scenario for every alert")
                .containsExactlyInAnyOrderElementsOf(byName.keySet());

        List<Map<String, Object>> tests = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            Map<String, Object> rule = byName.get(scenario.alert());
            assertThat(scenario.pendingAt() != null)
                    .as(scenario.alert() + ": a scenario checks that it waits for its 'for' exactly when it has one")
                    .isEqualTo(rule.containsKey("for"));
            Map<String, String> labels = new LinkedHashMap<>((Map<String, String>) rule.get("labels"));
            labels.putAll(scenario.labels());
            Map<String, String> annotations = new LinkedHashMap<>();
            ((Map<String, String>) rule.get("annotations")).forEach((key, text) -> {
                for (Map.Entry<String, String> label : scenario.labels().entrySet()) {
                    text = text.replace("{{ $labels." + label.getKey() + " }}", label.getValue());
                }
                annotations.put(key, text);
            });
            List<Map<String, Object>> checks = new ArrayList<>();
            checks.add(check(
                    scenario.alert(),
                    scenario.evalTime(),
                    List.of(Map.of("exp_labels", labels, "exp_annotations", annotations))));
            if (scenario.pendingAt() != null) {
                checks.add(check(scenario.alert(), scenario.pendingAt(), List.of()));
            }
            tests.add(ruleTest(scenario.firing(), checks));
            tests.add(ruleTest(scenario.quiet(), List.of(check(scenario.alert(), scenario.evalTime(), List.of()))));
        }
        Map<String, Object> file = new LinkedHashMap<>();
        file.put(
                "rule_files",
                List.of(MonitoringFiles.alertsFile().toAbsolutePath().toString()));
        file.put("evaluation_interval", "1m");
        file.put("tests", tests);
        Path test = Files.writeString(dir.resolve("alerts-test.yml"), new Yaml().dump(file));

        assertThat(promtool("test", "rules", test.toString())).contains("SUCCESS");
    }

    private static String reconcileProblems(String labels, String verdict) {
        return "reconcile_open_problems" + labels.replace("}", ",verdict=\"" + verdict + "\"}");
    }

    private static Map<String, String> latencyBuckets(
            String labels, String under500ms, String underOneSecond, String all) {
        String series = "accounting_latency_since_occurred_seconds_bucket" + labels.replace("}", ",le=\"%s\"}");
        return Map.of(
                series.formatted("0.5"), under500ms,
                series.formatted("1.0"), underOneSecond,
                series.formatted("2.5"), all,
                series.formatted("+Inf"), all);
    }

    private static Map<String, Object> ruleTest(Map<String, String> series, List<Map<String, Object>> checks) {
        List<Map<String, String>> input = new ArrayList<>();
        series.forEach((name, values) -> input.add(Map.of("series", name, "values", values)));
        return Map.of("interval", "1m", "input_series", input, "alert_rule_test", checks);
    }

    private static Map<String, Object> check(String alert, String evalTime, List<Map<String, Object>> expected) {
        return Map.of("eval_time", evalTime, "alertname", alert, "exp_alerts", expected);
    }

    @Test
    @SuppressWarnings("unchecked")
    void prometheusScrapesEachServiceOnItsManagementPortWithATokenItAccepts() throws Exception {
        Map<String, Object> prometheus =
                MonitoringFiles.yaml(MonitoringFiles.docker().resolve("prometheus/prometheus.yml"));
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>)
                MonitoringFiles.yaml(ComposeConfigurationTests.root().resolve("compose.yaml"))
                        .get("services");
        Map<String, String> targets = new HashMap<>();
        for (Map<String, Object> job : (List<Map<String, Object>>) prometheus.get("scrape_configs")) {
            String name = (String) job.get("job_name");
            assertThat(job.get("metrics_path")).as(name).isEqualTo("/actuator/prometheus");
            Map<String, Object> authorization = (Map<String, Object>) job.get("authorization");
            assertThat(authorization.get("type")).as(name).isEqualTo("Bearer");
            String[] scraped = SCRAPED.get(name);
            assertThat(scraped).as("job " + name + " is a compose service").isNotNull();
            assertThat(serviceConfig(scraped[1]))
                    .as(name + " accepts the token Prometheus sends: its admin digest defaults to that token's SHA-256")
                    .contains("${" + scraped[2] + ":" + sha256((String) authorization.get("credentials")) + "}");
            List<Map<String, Object>> statics = (List<Map<String, Object>>) job.get("static_configs");
            targets.put(name, ((List<String>) statics.get(0).get("targets")).get(0));
            assertThat(services.get(name).get("environment")).as(name).isInstanceOf(Map.class);
            Object port = ((Map<String, Object>) services.get(name).get("environment")).get(scraped[0]);
            assertThat(targets.get(name))
                    .as(name + " is scraped on the management port compose gives it")
                    .isEqualTo(name + ":" + port);
        }
        assertThat(targets).containsOnlyKeys(SCRAPED.keySet());
    }

    @Test
    @SuppressWarnings("unchecked")
    void grafanaProvisionsThePrometheusOfComposeAndEveryDashboardUsesIt() {
        Map<String, Object> compose =
                MonitoringFiles.yaml(ComposeConfigurationTests.root().resolve("compose.yaml"));
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        List<String> grafanaVolumes = (List<String>) services.get("grafana").get("volumes");
        Path provisioning = MonitoringFiles.docker().resolve("grafana/provisioning");
        Map<String, Object> datasource = ((List<Map<String, Object>>)
                        MonitoringFiles.yaml(provisioning.resolve("datasources/prometheus.yml"))
                                .get("datasources"))
                .get(0);
        Map<String, Object> provider = ((List<Map<String, Object>>)
                        MonitoringFiles.yaml(provisioning.resolve("dashboards/pipeline.yml"))
                                .get("providers"))
                .get(0);

        assertThat(datasource.get("url"))
                .as("compose's prometheus service on its own port")
                .isEqualTo("http://prometheus:9090");
        assertThat(services).containsKey("prometheus");
        assertThat(grafanaVolumes)
                .contains("./docker/grafana/provisioning:/etc/grafana/provisioning:ro")
                .contains("./docker/grafana/dashboards:" + ((Map<String, Object>) provider.get("options")).get("path")
                        + ":ro");
        assertThat(MonitoringFiles.dashboards()).isNotEmpty();
        for (Path file : MonitoringFiles.dashboards()) {
            List<JsonNode> panels = MonitoringFiles.panels(MonitoringFiles.json(file));
            assertThat(panels).as(file.toString()).isNotEmpty();
            for (JsonNode panel : panels) {
                if (panel.path("type").asString().equals("row")) {
                    continue;
                }
                assertThat(panel.path("datasource").path("uid").asString())
                        .as(file.getFileName() + " / " + panel.path("title").asString())
                        .isEqualTo(datasource.get("uid"));
                assertThat(panel.path("targets"))
                        .as(panel.path("title").asString())
                        .isNotEmpty();
            }
        }
    }

    /** The operations document's alert table is generated from the rules file: name, expression, for, why. */
    @Test
    @SuppressWarnings("unchecked")
    void theOperationsDocumentsAlertTableIsTheRulesFile() {
        StringBuilder table = new StringBuilder("| alert | expression | for | why |\n|---|---|---|---|\n");
        MonitoringFiles.alertRules().forEach((name, rule) -> {
            Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
            table.append("| `")
                    .append(name)
                    .append("` | `")
                    .append(String.valueOf(rule.get("expr")).replace("|", "\\|"))
                    .append("` | ")
                    .append(rule.get("for") == null ? "" : rule.get("for"))
                    .append(" | ")
                    .append(annotations.get("summary"))
                    .append(". ")
                    .append(annotations.get("description"))
                    .append(" |\n");
        });
        GeneratedBlock.assertCurrent("operations.md", "alerts", table.toString());
    }

    /**
     * Runs promtool, Prometheus's own checker, from the PATH. A developer's machine may lack it (the test is then
     * skipped, and says so); CI must have it (Debian: {@code apt-get install prometheus}), so there its absence fails.
     */
    static String promtool(String... args) throws Exception {
        boolean found = java.util.stream.Stream.of(
                        System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, "promtool")));
        if (!found && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("promtool is not on the PATH; CI must install it (apt-get install prometheus)");
        }
        assumeTrue(found, "promtool is not on the PATH (apt-get install prometheus); the expressions were not parsed");
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out;
    }

    private static String serviceConfig(String name) throws IOException {
        try (var in = MonitoringConfigurationTests.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String sha256(String token) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
