package dev.outbox.system;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md's table of settings is generated from two sources, never from prose: each service's
 * configuration file, which says which environment variable sets which property and with what default
 * ({@code property: ${VARIABLE:default}}), and Spring Boot's configuration metadata, which describes every property
 * (ours from the javadoc of our {@code @ConfigurationProperties} records, Spring's from Spring's own). It fails when
 * one of our properties has no description, or no variable that sets it, or when a default in the configuration file
 * differs from the record's {@code @DefaultValue} (an empty one means "none configured", and the file may give a
 * development value), or when a variable sets nothing described.
 */
class ConfigurationDocumentationTests {

    /** Service -> its configuration file and the packages of its own properties. */
    private record Service(String name, String config, List<String> packages) {}

    private static final List<Service> SERVICES = List.of(
            new Service("payments-api", "application.yaml", List.of("dev.outbox.payments", "dev.outbox.security")),
            new Service("cdc-relay", "relay.yaml", List.of("dev.outbox.relay", "dev.outbox.security")),
            new Service(
                    "accounting-consumer", "accounting.yaml", List.of("dev.outbox.accounting", "dev.outbox.security")));

    /** Our properties that no variable sets, and why; the document says so. */
    private static final Map<String, String> WITHOUT_VARIABLE = Map.of(
            "admin.paths", "fixed by each service: which of its paths are operator paths",
            "relay.cdc.debezium", "a map: `--relay.cdc.debezium.<key>=<value>` on the command line");

    private static final Pattern VARIABLE = Pattern.compile("[A-Z][A-Z0-9_]*");

    /** One variable as a service's configuration file reads it. */
    private record Setting(String variable, String property, String defaultValue) {}

    /** A property of the metadata. */
    private record Property(String name, String description, String defaultValue, String sourceType) {}

    @Test
    void theConfigurationDocumentIsGeneratedFromTheMetadataAndTheConfigurationFiles() {
        Map<String, Property> metadata = metadata();
        StringBuilder doc = new StringBuilder();
        List<String> problems = new ArrayList<>();
        int variables = 0;
        for (Service service : SERVICES) {
            List<Setting> settings = settings(service.config());
            doc.append("\n### ")
                    .append(service.name())
                    .append(" (`")
                    .append(service.config())
                    .append("`)\n\n");
            doc.append("| variable | property | default | description |\n|---|---|---|---|\n");
            for (Setting s : settings) {
                Property described = described(metadata, s.property());
                if (described == null || described.description() == null) {
                    problems.add(service.name() + ": " + s.variable() + " sets " + s.property()
                            + ", which no configuration metadata describes");
                    continue;
                }
                doc.append("| `")
                        .append(s.variable())
                        .append("` | `")
                        .append(s.property())
                        .append("` | ")
                        .append(s.defaultValue().isEmpty() ? "(empty)" : "`" + s.defaultValue() + "`")
                        .append(" | ")
                        .append(markdown(described.description()))
                        .append(" |\n");
                variables++;
            }
            for (Property own : metadata.values()) {
                if (service.packages().stream().noneMatch(p -> own.sourceType().startsWith(p + "."))) {
                    continue;
                }
                if (own.description() == null || own.description().isBlank()) {
                    problems.add(own.name() + " has no description: write one in its record's javadoc (@param)");
                }
                List<Setting> setting = settings.stream()
                        .filter(s ->
                                s.property().equals(own.name()) || s.property().startsWith(own.name() + ".["))
                        .toList();
                if (setting.isEmpty() && !WITHOUT_VARIABLE.containsKey(own.name())) {
                    problems.add(service.name() + " reads no variable for " + own.name() + ": add `" + own.name()
                            + ": ${VARIABLE:default}` to " + service.config());
                }
                for (Setting s : setting) {
                    // an empty record default means "none configured": the file may give a development value
                    if (own.defaultValue() != null
                            && !own.defaultValue().isEmpty()
                            && s.property().equals(own.name())
                            && !sameDefault(own.defaultValue(), s.defaultValue())) {
                        problems.add(s.variable() + "'s default in " + service.config() + " is '" + s.defaultValue()
                                + "', the record's is '" + own.defaultValue() + "'");
                    }
                }
            }
        }
        doc.append(
                "\n### Properties no variable sets\n\n| property | description | why no variable |\n|---|---|---|\n");
        new TreeMap<>(WITHOUT_VARIABLE)
                .forEach((name, why) -> doc.append("| `")
                        .append(name)
                        .append("` | ")
                        .append(markdown(metadata.get(name).description()))
                        .append(" | ")
                        .append(why)
                        .append(" |\n"));
        doc.append('\n');

        assertThat(problems).as("the configuration's sources disagree").isEmpty();
        assertThat(variables).as("variables documented").isGreaterThan(60);
        GeneratedBlock.assertCurrent("configuration.md", "properties", doc.toString());
    }

    /**
     * Every {@code ${VARIABLE:default}} of the configuration file, with the property it sets, in the file's order. A
     * reference to another property ({@code ${relay.db.host}}) is not a variable.
     */
    @SuppressWarnings("unchecked")
    private static List<Setting> settings(String config) {
        Map<String, Object> yaml = new Yaml().load(resource(config));
        List<Setting> settings = new ArrayList<>();
        flatten("", yaml, (property, value) -> {
            for (String[] placeholder : placeholders(value)) {
                if (VARIABLE.matcher(placeholder[0]).matches()) {
                    settings.add(new Setting(placeholder[0], property, placeholder[1]));
                }
            }
        });
        return settings;
    }

    private interface Leaf {
        void accept(String property, String value);
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Map<String, Object> map, Leaf leaf) {
        map.forEach((key, value) -> {
            String property = prefix.isEmpty() ? key : prefix + "." + key;
            if (value instanceof Map<?, ?> nested) {
                flatten(property, (Map<String, Object>) nested, leaf);
            } else if (value != null) {
                leaf.accept(property, String.valueOf(value));
            }
        });
    }

    /** {name, default} of each top-level {@code ${...}} in {@code value}; the default may hold placeholders. */
    private static List<String[]> placeholders(String value) {
        List<String[]> found = new ArrayList<>();
        int i = value.indexOf("${");
        while (i >= 0) {
            int depth = 0;
            int end = i;
            for (int j = i; j < value.length(); j++) {
                char c = value.charAt(j);
                if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    end = j;
                    break;
                }
            }
            String inside = value.substring(i + 2, end);
            int colon = inside.indexOf(':');
            found.add(
                    colon < 0
                            ? new String[] {inside, ""}
                            : new String[] {inside.substring(0, colon), inside.substring(colon + 1)});
            i = value.indexOf("${", end);
        }
        return found;
    }

    /** The property itself, or the map property it is a key of ({@code relay.kafka.client.[sasl.mechanism]}). */
    private static Property described(Map<String, Property> metadata, String property) {
        String name = property;
        while (true) {
            Property p = metadata.get(name);
            if (p != null) {
                return p;
            }
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                return null;
            }
            name = name.substring(0, dot);
        }
    }

    /** Every property of every configuration metadata file on the class path (the services', Spring Boot's). */
    private static Map<String, Property> metadata() {
        Map<String, Property> properties = new LinkedHashMap<>();
        JsonMapper json = JsonMapper.builder().build();
        try {
            for (URL url : Collections.list(ConfigurationDocumentationTests.class
                    .getClassLoader()
                    .getResources("META-INF/spring-configuration-metadata.json"))) {
                try (InputStream in = url.openStream()) {
                    for (JsonNode p : json.readTree(in).path("properties")) {
                        JsonNode description = p.get("description");
                        JsonNode defaultValue = p.get("defaultValue");
                        // a property several files name (a third-party one a service describes) keeps its description
                        properties.merge(
                                p.path("name").asString(),
                                new Property(
                                        p.path("name").asString(),
                                        description == null ? null : description.asString(),
                                        defaultValue == null ? null : text(defaultValue),
                                        p.path("sourceType").asString("")),
                                (first, other) -> first.description() != null ? first : other);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(properties).containsKeys("relay.mode", "payments.max-body-bytes", "spring.datasource.url");
        return properties;
    }

    private static String text(JsonNode value) {
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            value.forEach(item -> items.add(item.asString()));
            return String.join(",", items);
        }
        return value.asString();
    }

    private static boolean sameDefault(String recorded, String configured) {
        String record = recorded.replaceAll("[\\[\\] ]", "");
        return record.equalsIgnoreCase(configured.replace(" ", ""));
    }

    /** Javadoc's inline tags as Markdown; a pipe cannot stand in a table cell. */
    private static String markdown(String javadoc) {
        return javadoc.replaceAll("\\{@(?:code|literal) ([^{}]*(?:\\{[^{}]*}[^{}]*)*)}", "`$1`")
                .replaceAll("\\{@link(?:plain)? #?([^{} ]+)(?: ([^{}]+))?}", "$1")
                .replace("|", "\\|")
                .replaceAll("\\s+", " ")
                .strip();
    }

    private static String resource(String name) {
        try (InputStream in =
                ConfigurationDocumentationTests.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
