package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import dev.outbox.local.BootJar;
import dev.outbox.local.JavaProcess;
import dev.outbox.local.RelayJvm;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each service started from its executable jar, as the local run, the Dockerfile and an operator start it, not from
 * the tests' class path: a dependency the jar lacks (springdoc's Jackson 2 time module once was) fails here. The API
 * serves its OpenAPI document and creates a payment; the consumer and the relay answer their health checks, and the
 * relay publishes an event with lz4-java's native library and loads its engine's classes from its class-data archive.
 * Started as deployed, the relay runs its ahead-of-time Spring context in cdc mode, and builds its context at run time
 * in polling mode, whose beans that context does not hold.
 */
class ExecutableJarsIntegrationTests {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void paymentsApiStartsFromItsJarServesItsDocumentAndTakesAPayment() throws Exception {
        int port = Ports.free();
        Map<String, String> env = new HashMap<>();
        env.put("PAYMENTS_DB_URL", SharedInfra.postgres().jdbcUrl(SharedInfra.freshDatabase("jarapi")));
        env.put("PAYMENTS_HTTP_PORT", String.valueOf(port));
        env.put("PAYMENTS_MANAGEMENT_PORT", "0");
        Process api = start("payments-api", env, port, "/readyz");
        try {
            assertThat(get(port, "/v3/api-docs").statusCode()).isEqualTo(200);
            HttpResponse<String> created = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                            .header("Authorization", "Bearer local-key-client-a")
                            .header("Idempotency-Key", "jar-1")
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"3.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        } finally {
            JavaProcess.kill(api);
        }
    }

    @Test
    void consumerAndRelayStartFromTheirJars() throws Exception {
        String kafka = SharedInfra.kafka().bootstrapServers();
        int consumerPort = Ports.free();
        Map<String, String> consumerEnv = new HashMap<>();
        consumerEnv.put("ACCOUNTING_DB_URL", SharedInfra.postgres().jdbcUrl(SharedInfra.freshDatabase("jaracc")));
        consumerEnv.put("KAFKA_BOOTSTRAP_SERVERS", kafka);
        consumerEnv.put("ACCOUNTING_HTTP_PORT", String.valueOf(consumerPort));
        consumerEnv.put("ACCOUNTING_MANAGEMENT_PORT", "0");
        Process consumer = start("accounting-consumer", consumerEnv, consumerPort, "/readyz");
        JavaProcess.kill(consumer);

        int relayPort = Ports.free();
        String suffix = "jar" + Long.toHexString(System.nanoTime());
        Map<String, String> relayEnv = new HashMap<>();
        relayEnv.put("RELAY_DB_HOST", SharedInfra.postgres().host());
        relayEnv.put("RELAY_DB_PORT", String.valueOf(SharedInfra.postgres().port()));
        relayEnv.put("RELAY_DB_NAME", OutboxRows.migratedDatabase());
        relayEnv.put("KAFKA_BOOTSTRAP_SERVERS", kafka);
        relayEnv.put("RELAY_CDC_SLOT", "slot_" + suffix);
        relayEnv.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + suffix);
        relayEnv.put("RELAY_HTTP_PORT", String.valueOf(relayPort));
        String database = relayEnv.get("RELAY_DB_NAME");
        Path classes = Path.of("target", "jar-cdc-relay-classes.txt");
        Files.deleteIfExists(classes);
        Process relay =
                start("cdc-relay", relayEnv, relayPort, "/actuator/health", "-Xlog:class+load=info:file=" + classes);
        try {
            // an event published: its lz4-compressed batch ran through lz4-java's native library, which it loads
            // only from the system class loader, so only when the jar is extracted as the Dockerfile and the local run
            // start it (from the executable jar's nested jars it falls back to pure Java)
            DataSource ds = OutboxRows.dataSource(database);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> JdbcClient.create(ds)
                                    .sql("SELECT count(*) FROM pg_replication_slots WHERE slot_name = :slot AND active")
                                    .param("slot", relayEnv.get("RELAY_CDC_SLOT"))
                                    .query(Integer.class)
                                    .single()
                            == 1);
            List<OutboxEvent> events = OutboxRows.insert(database, 1, 1);
            awaitPublished(ds, events.get(0));
            assertThat(Files.readString(Path.of("/proc", String.valueOf(relay.pid()), "maps")))
                    .as("lz4-java's native library mapped into the relay")
                    .contains("liblz4-java");
            // started as deployed (RelayJvm): its class-data archive was recorded by a training run that streamed, so
            // the classes its engine loads once Spring has started come from the archive too, not only Spring's; and
            // that run built the context the relay builds, the one generated ahead of time
            assertThat(Files.readAllLines(classes))
                    .as("classes the relay loaded, and from where")
                    .anyMatch(line -> line.contains(
                            "dev.outbox.relay.RelayApplication__BeanFactoryRegistrations source: shared objects file"))
                    .anyMatch(line -> line.contains(
                            "io.debezium.connector.postgresql.PostgresStreamingChangeEventSource source: shared objects"
                                    + " file"))
                    .anyMatch(line -> line.contains(
                            "org.apache.kafka.clients.producer.KafkaProducer source: shared objects file"));
            assertThat(Files.readString(Path.of("target", "jar-cdc-relay.log")))
                    .as("the relay's context generated at build time (Spring AOT)")
                    .contains("Starting AOT-processed RelayApplication");
        } finally {
            JavaProcess.kill(relay);
        }
        // the same jar and options in polling mode (after the cdc run: its class-data archive is recorded by then)
        pollingRelayBuildsItsContextAtRunTimeAndPublishes();
    }

    private static void pollingRelayBuildsItsContextAtRunTimeAndPublishes() throws Exception {
        int relayPort = Ports.free();
        String suffix = "jarpoll" + Long.toHexString(System.nanoTime());
        String database = OutboxRows.migratedDatabase();
        Map<String, String> relayEnv = new HashMap<>();
        relayEnv.put("RELAY_MODE", "polling");
        relayEnv.put("RELAY_DB_HOST", SharedInfra.postgres().host());
        relayEnv.put("RELAY_DB_PORT", String.valueOf(SharedInfra.postgres().port()));
        relayEnv.put("RELAY_DB_NAME", database);
        relayEnv.put("KAFKA_BOOTSTRAP_SERVERS", SharedInfra.kafka().bootstrapServers());
        relayEnv.put("RELAY_TOPIC_PATTERN", "t-" + suffix + ".{aggregateType}.events");
        relayEnv.put("RELAY_HTTP_PORT", String.valueOf(relayPort));
        // the option that enables the ahead-of-time context (RelayJvm.OPTIONS) is on the command line, as deployed
        Path log = Path.of("target", "jar-cdc-relay-polling.log");
        Files.deleteIfExists(log);
        Process relay = start("cdc-relay", relayEnv, relayPort, "/actuator/health", "-Dlogging.file.name=" + log);
        try {
            List<OutboxEvent> events = OutboxRows.insert(database, 1, 1);
            DataSource ds = OutboxRows.dataSource(database);
            awaitPublished(ds, events.get(0));
            assertThat(Files.readString(log))
                    .as("polling's beans are not in the context generated for cdc: it is built at run time")
                    .contains("relay.mode=polling: building the context as it starts")
                    .doesNotContain("AOT-processed")
                    .doesNotContain("Debezium");
        } finally {
            JavaProcess.kill(relay);
        }
    }

    private static void awaitPublished(DataSource ds, OutboxEvent event) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> JdbcClient.create(ds)
                        .sql("SELECT published FROM outbox_delivery WHERE id = :id")
                        .param("id", event.id())
                        .query(Boolean.class)
                        .single());
    }

    private static Process start(String module, Map<String, String> env, int port, String readyPath, String... jvmArgs)
            throws Exception {
        Path jar;
        try (var files = Files.list(Path.of("..", module, "target"))) {
            jar = files.filter(p -> p.getFileName().toString().endsWith("-exec.jar"))
                    .findFirst()
                    .orElseThrow();
        }
        Path dir = Path.of("target", "jar-" + module);
        JavaProcess.Builder builder =
                module.equals("cdc-relay") ? RelayJvm.start(jar, dir, env) : BootJar.start(jar, dir, env);
        for (String arg : jvmArgs) {
            builder.jvmArg(arg);
        }
        Process process = builder.env(env)
                .heap("384m")
                .logTo(Path.of("target", "jar-" + module + ".log"))
                .start();
        try {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .failFast("the service exited", () -> !process.isAlive())
                    .until(() -> status(port, readyPath) == 200);
        } catch (RuntimeException | Error e) {
            JavaProcess.kill(process);
            throw e;
        }
        return process;
    }

    private static int status(int port, String path) {
        try {
            return get(port, path).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(3))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
