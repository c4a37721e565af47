package dev.outbox.system;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.outbox.local.LocalCredentials;
import dev.outbox.local.RelayJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without a Docker engine the stack cannot be started here, so this checks what can be checked: compose.yaml
 * and its polling override parse, every long-running service has a healthcheck and restarts unless stopped (one-shot
 * ones are awaited to completion), every environment variable compose gives a service is one that service's own
 * configuration file reads, the tests' credentials are the stack's, and the Dockerfile ignores no failure.
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
            Map<String, Object> environment = (Map<String, Object>) definition.get("environment");
            for (String key : environment.keySet()) {
                if (key.equals("JAVA_TOOL_OPTIONS")) {
                    // read by the JVM: the image's own options, and for the relay its RelayJvm options
                    assertThat(String.valueOf(environment.get(key)))
                            .as(service + "'s JAVA_TOOL_OPTIONS keeps the image's")
                            .contains("-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError");
                    if (service.equals("cdc-relay")) {
                        assertThat(String.valueOf(environment.get(key)).split("\\s+"))
                                .as("the relay's JVM options, as the local run and the soak start it")
                                .containsAll(RelayJvm.OPTIONS);
                    }
                    continue;
                }
                assertThat(text)
                        .as(service + " reads " + key + " (" + file + ")")
                        .contains("${" + key);
            }
        });
    }

    /**
     * The development credentials every test reads ({@link LocalCredentials}) are compose's and init.sql's, and the
     * HTTP tokens' SHA-256 digests are the services' defaults, so the tests log in as a user of the stack would.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theLocalCredentialsAreTheStacksOwn() throws Exception {
        String init = Files.readString(root().resolve("docker/postgres/init.sql"));
        for (LocalCredentials.Login role : List.of(
                LocalCredentials.PAYMENTS_DB,
                LocalCredentials.RELAY_DB,
                LocalCredentials.ACCOUNTING_DB,
                LocalCredentials.RECONCILER_DB)) {
            assertThat(init)
                    .as(role.user() + " in init.sql")
                    .containsPattern("CREATE ROLE " + role.user() + " LOGIN[A-Z ]* PASSWORD '" + role.password() + "'");
        }
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) new Yaml()
                .<Map<String, Object>>load(Files.readString(root().resolve("compose.yaml")))
                .get("services");
        Map<String, Object> postgres =
                (Map<String, Object>) services.get("postgres").get("environment");
        assertThat(postgres).containsEntry("POSTGRES_PASSWORD", LocalCredentials.POSTGRES.password());
        Map<String, Object> init_ =
                (Map<String, Object>) services.get("kafka-init").get("environment");
        assertThat(init_)
                .containsEntry("ADMIN_PASSWORD", LocalCredentials.KAFKA_ADMIN.password())
                .containsEntry("RELAY_PASSWORD", LocalCredentials.KAFKA_RELAY.password())
                .containsEntry("ACCOUNTING_PASSWORD", LocalCredentials.KAFKA_ACCOUNTING.password())
                .containsEntry("REPLAY_PASSWORD", LocalCredentials.KAFKA_REPLAY.password())
                .containsEntry("RECONCILER_PASSWORD", LocalCredentials.KAFKA_RECONCILER.password())
                .containsEntry("UI_PASSWORD", LocalCredentials.KAFKA_UI.password());
        assertThat(LocalCredentials.kafkaPrincipals()).hasSize(5);
        Map<String, Object> consumer =
                (Map<String, Object>) services.get("accounting-consumer").get("environment");
        assertThat(consumer)
                .containsEntry("ACCOUNTING_RECONCILE_PAYMENTS_USER", LocalCredentials.RECONCILER_DB.user())
                .containsEntry("ACCOUNTING_RECONCILE_PAYMENTS_PASSWORD", LocalCredentials.RECONCILER_DB.password())
                .containsEntry("ACCOUNTING_RECONCILE_DB_USER", LocalCredentials.RECONCILER_DB.user())
                .containsEntry("ACCOUNTING_RECONCILE_DB_PASSWORD", LocalCredentials.RECONCILER_DB.password())
                .containsEntry("ACCOUNTING_RECONCILE_KAFKA_USERNAME", LocalCredentials.KAFKA_RECONCILER.user())
                .containsEntry("ACCOUNTING_RECONCILE_KAFKA_PASSWORD", LocalCredentials.KAFKA_RECONCILER.password());
        String adminDigest = sha256(LocalCredentials.ADMIN_TOKEN);
        for (String config : CONFIG_OF.values()) {
            assertThat(resource(config)).as(config + "'s default admin digest").contains(":" + adminDigest + "}");
        }
        assertThat(resource("application.yaml"))
                .contains("client-a=" + sha256(LocalCredentials.CLIENT_A_KEY))
                .contains("client-b=" + sha256(LocalCredentials.CLIENT_B_KEY));
    }

    private static String sha256(String token) throws Exception {
        return java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(token.getBytes(StandardCharsets.UTF_8)));
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
