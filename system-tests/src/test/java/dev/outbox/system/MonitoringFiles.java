package dev.outbox.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The monitoring files compose mounts, as the tests read them: Prometheus's config and alert rules
 * (docker/prometheus) and the Grafana dashboards' queries (docker/grafana), and the metric names a PromQL expression
 * selects.
 */
final class MonitoringFiles {

    /** What PromQL spells like a metric name but is not one. */
    private static final Set<String> KEYWORDS =
            Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "inf", "nan");

    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:$])[a-zA-Z_:][a-zA-Z0-9_:]*");

    private MonitoringFiles() {}

    static Path docker() {
        return ComposeConfigurationTests.root().resolve("docker");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(Path file) {
        try {
            return new Yaml().load(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path alertsFile() {
        return docker().resolve("prometheus/alerts.yml");
    }

    /** Alert name -> its rule as written (expr, for, labels, annotations), in the order of the rules file. */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> alertRules() {
        Map<String, Map<String, Object>> rules = new LinkedHashMap<>();
        for (Map<String, Object> group :
                (List<Map<String, Object>>) yaml(alertsFile()).get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                rules.put((String) rule.get("alert"), rule);
            }
        }
        return rules;
    }

    /** Alert name -> expression, in the order of docker/prometheus/alerts.yml. */
    static Map<String, String> alerts() {
        Map<String, String> alerts = new LinkedHashMap<>();
        alertRules().forEach((name, rule) -> alerts.put(name, String.valueOf(rule.get("expr"))));
        return alerts;
    }

    /** Every dashboard JSON file compose provisions into Grafana. */
    static List<Path> dashboards() {
        try (Stream<Path> files = Files.list(docker().resolve("grafana/dashboards"))) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode json(Path file) {
        try {
            return JsonMapper.builder().build().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every panel of a dashboard, those inside rows included. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> panels = new java.util.ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            panels.add(panel);
            panel.path("panels").forEach(panels::add);
        }
        return panels;
    }

    /** "dashboard / panel / refId" -> the query's expression, for every query of every dashboard. */
    static Map<String, String> dashboardQueries() {
        Map<String, String> queries = new LinkedHashMap<>();
        for (Path file : dashboards()) {
            JsonNode dashboard = json(file);
            for (JsonNode panel : panels(dashboard)) {
                for (JsonNode target : panel.path("targets")) {
                    queries.put(
                            dashboard.path("title").asString() + " / "
                                    + panel.path("title").asString() + " / "
                                    + target.path("refId").asString(),
                            target.path("expr").asString());
                }
            }
        }
        return queries;
    }

    /** Grafana's interval variables replaced by a fixed window, so that promtool parses what Prometheus will get. */
    static String withoutGrafanaVariables(String expr) {
        return expr.replace("$__rate_interval", "5m")
                .replace("$__interval", "1m")
                .replace("$__range", "1h");
    }

    /**
     * The metric names an expression selects: identifiers that are neither functions or aggregations (followed by
     * a parenthesis), keywords, label names (inside braces or a by/without/on/ignoring list) nor text in quotes.
     */
    static Set<String> metricNames(String expr) {
        String selectors = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(selectors);
        while (m.find()) {
            String name = m.group();
            boolean call = selectors.substring(m.end()).stripLeading().startsWith("(");
            if (!call && !KEYWORDS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                names.add(name);
            }
        }
        return names;
    }
}
