package dev.outbox.system;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without a Docker engine the stack cannot be started here, so this checks what can be checked: compose.yaml
 * and its polling override parse, every long-running service has a healthcheck and restarts unless stopped (one-shot
 * ones are awaited to completion), every environment variable compose gives a service is one that service's own
 * configuration file reads, every variable a service reads is documented, and the Dockerfile ignores no failure.
 */
class ComposeConfigurationTests {

    static final Map<String, String> CONFIG_OF = Map.of(
            "payments-api", "application.yaml",
            "cdc-relay", "relay.yaml",
            "accounting-consumer", "accounting.yaml");

    @ParameterizedTest
    @ValueSource(strings = {"compose.yaml", "compose.polling.yaml"})
    @SuppressWarnings("unchecked")
    void everyServiceEnvironmentKeyIsReadByThatService(String file) throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(root().resolve(file)));
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        if (file.equals("compose.yaml")) {
            assertThat(services)
                    .containsKeys(
                            "postgres",
                            "kafka",
                            "kafka-init",
                            "kafka-ui",
                            "payments-api",
                            "cdc-relay",
                            "accounting-consumer",
                            "prometheus",
                            "grafana");
            services.forEach((name, service) -> {
                if ("no".equals(service.get("restart"))) {
                    assertThat(dependents(services, name))
                            .as(name + " runs once; others wait for it to finish")
                            .isNotEmpty()
                            .allMatch("service_completed_successfully"::equals);
                } else {
                    assertThat(service).as(name).containsKey("healthcheck");
                    // the image's ExitOnOutOfMemoryError counts on a restart, and so does any crash at night
                    assertThat(service.get("restart"))
                            .as(name + " is restarted unless an operator stopped it")
                            .isEqualTo("unless-stopped");
                }
            });
        }
        CONFIG_OF.forEach((service, config) -> {
            Map<String, Object> definition = services.get(service);
            if (definition == null || definition.get("environment") == null) {
                return;
            }
            String text = resource(config);
            for (String key : ((Map<String, Object>) definition.get("environment")).keySet()) {
                assertThat(text)
                        .as(service + " reads " + key + " (" + file + ")")
                        .contains("${" + key);
            }
        });
    }

    /**
     * The services' own configuration files are the source: every variable a service reads ({@code ${VAR...}})
     * is documented in the README's configuration table, under its name in backquotes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"payments-api", "cdc-relay", "accounting-consumer"})
    void everyVariableAServiceReadsIsDocumented(String service) throws IOException {
        String readme = Files.readString(root().resolve("README.md"));
        Matcher variable = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]+)[:}]").matcher(resource(CONFIG_OF.get(service)));
        int checked = 0;
        while (variable.find()) {
            assertThat(readme)
                    .as(service + " reads " + variable.group(1) + "; the README's table lists it")
                    .contains("`" + variable.group(1) + "`");
            checked++;
        }
        assertThat(checked).isGreaterThan(5);
    }

    /**
     * And the other way round: every variable the README's configuration table lists for a service is one that
     * service's configuration file reads, so a renamed or removed setting cannot stay documented.
     */
    @ParameterizedTest
    @ValueSource(strings = {"payments-api", "cdc-relay", "accounting-consumer"})
    void everyVariableTheTableListsIsReadByItsService(String service) throws IOException {
        String config = resource(CONFIG_OF.get(service));
        Pattern row = Pattern.compile("^\\| " + Pattern.quote(service) + " \\| ([^|]+) \\|", Pattern.MULTILINE);
        Pattern name = Pattern.compile("`([A-Z][A-Z0-9_]+)`");
        Matcher rows = row.matcher(Files.readString(root().resolve("README.md")));
        int checked = 0;
        while (rows.find()) {
            Matcher variable = name.matcher(rows.group(1));
            while (variable.find()) {
                assertThat(Pattern.compile("\\$\\{" + Pattern.quote(variable.group(1)) + "[:}]")
                                .matcher(config)
                                .find())
                        .as("the README's table lists " + variable.group(1) + " for " + service + ", which reads it")
                        .isTrue();
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(5);
    }

    /** A failing step of the image build fails the build; nothing is papered over with {@code || true}. */
    @Test
    void theDockerfileLetsNoCommandFailSilently() throws IOException {
        String dockerfile = Files.readString(root().resolve("docker/Dockerfile"));
        assertThat(dockerfile).contains("RUN ").doesNotContainPattern("\\|\\|\\s*(true\\b|:)");
    }

    /** How the services that depend on {@code name} wait for it. */
    @SuppressWarnings("unchecked")
    private static java.util.List<Object> dependents(Map<String, Map<String, Object>> services, String name) {
        return services.values().stream()
                .map(s -> s.get("depends_on") instanceof Map<?, ?> d ? (Map<String, Map<String, Object>>) d : null)
                .filter(d -> d != null && d.containsKey(name))
                .map(d -> d.get(name).get("condition"))
                .toList();
    }

    private static String resource(String name) {
        try (InputStream in = ComposeConfigurationTests.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("compose.yaml"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "compose.yaml not found above " + Path.of("").toAbsolutePath());
    }
}
