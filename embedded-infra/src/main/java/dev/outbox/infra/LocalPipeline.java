package dev.outbox.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;

/**
 * The one-command local run, without Docker: a durable embedded PostgreSQL (wal_level=logical, scram-sha-256 for
 * every connection) and a secured KRaft Kafka broker (SASL/SCRAM, ACLs) in this JVM, then payments-api, cdc-relay
 * and accounting-consumer as child JVMs from their built jars, each with its own database role and Kafka principal,
 * configured by the same environment variables as in compose. Ctrl-C stops everything it started.
 */
public final class LocalPipeline {

    /** The local run's Kafka credentials: the admin's, and the services' principals (as in compose.yaml). */
    static final String KAFKA_ADMIN_PASSWORD = "admin-secret";

    static final Map<String, String> KAFKA_PASSWORDS = Map.of(
            "relay", "relay-secret", "accounting", "accounting-secret", "replay", "replay-secret", "ui", "ui-secret");
    /** Written into a data directory this build created; an older one (trust, plaintext Kafka) is refused. */
    private static final String LAYOUT = "scram-v1";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private LocalPipeline() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("tail")) {
            TopicTail.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && (args[0].equals("dlt") || args[0].equals("parked"))) {
            ConsumerAdmin.main(args);
            return;
        }
        if (args.length > 0 && args[0].equals("check")) {
            InvariantChecker.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Path home = Path.of(env("LOCAL_DATA_DIR", ".local")).toAbsolutePath();
        checkLayout(home);
        Path logs = Files.createDirectories(home.resolve("logs"));
        int pgPort = Integer.parseInt(env("PG_PORT", "5432"));
        int kafkaPort = Integer.parseInt(env("KAFKA_PORT", "9092"));
        int controllerPort = Integer.parseInt(env("KAFKA_CONTROLLER_PORT", "9093"));

        say("starting PostgreSQL on 127.0.0.1:" + pgPort + " (data in " + home.resolve("postgres") + ")");
        PostgresServer postgres = PostgresServer.start(pgPort, home.resolve("postgres"), true);
        try {
            if (postgres.applyInitScript()) {
                say("created the databases and the services' least-privilege roles (docker/postgres/init.sql)");
            }
        } catch (IllegalStateException e) {
            postgres.close();
            throw new IllegalStateException(
                    "could not create the roles; a data directory from an older build "
                            + "has the databases without them: delete " + home + " for a clean slate",
                    e);
        }
        say("starting Kafka on 127.0.0.1:" + kafkaPort + " (SASL/SCRAM, ACLs of docker/kafka/acls.txt)");
        KafkaBroker kafka = KafkaBroker.secured(kafkaPort, controllerPort, home.resolve("kafka"), KAFKA_ADMIN_PASSWORD)
                .start();
        try (Admin admin = Admin.create(kafka.adminClientProperties())) {
            KafkaAccess.provision(admin, KAFKA_PASSWORDS);
        }
        Files.writeString(home.resolve("layout"), LAYOUT);

        List<Process> services = new ArrayList<>();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            say("stopping");
                            for (int i = services.size() - 1; i >= 0; i--) {
                                Process p = services.get(i);
                                p.destroy();
                                try {
                                    if (!p.waitFor(20, TimeUnit.SECONDS)) {
                                        p.destroyForcibly();
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                            kafka.close();
                            postgres.close();
                        },
                        "local-pipeline-shutdown"));

        String db = "jdbc:postgresql://127.0.0.1:" + pgPort + "/";
        Map<String, String> common = Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                kafka.bootstrapServers(),
                "KAFKA_SECURITY_PROTOCOL",
                "SASL_PLAINTEXT",
                "KAFKA_SASL_MECHANISM",
                KafkaBroker.MECHANISM);
        // the roles and passwords of docker/postgres/init.sql and the Kafka principals, as in compose
        services.add(launch(
                "payments-api",
                logs,
                common,
                Map.of(
                        "PAYMENTS_DB_URL",
                        db + "payments",
                        "PAYMENTS_DB_USER",
                        "payments_app",
                        "PAYMENTS_DB_PASSWORD",
                        "payments_app"),
                8080,
                "/readyz"));
        services.add(launch(
                "cdc-relay",
                logs,
                common,
                Map.of(
                        "RELAY_DB_HOST",
                        "127.0.0.1",
                        "RELAY_DB_PORT",
                        String.valueOf(pgPort),
                        "RELAY_DB_NAME",
                        "payments",
                        "RELAY_DB_USER",
                        "relay",
                        "RELAY_DB_PASSWORD",
                        "relay",
                        "KAFKA_USERNAME",
                        "relay",
                        "KAFKA_PASSWORD",
                        KAFKA_PASSWORDS.get("relay")),
                8081,
                "/actuator/health"));
        services.add(launch(
                "accounting-consumer",
                logs,
                common,
                Map.of(
                        "ACCOUNTING_DB_URL",
                        db + "accounting",
                        "ACCOUNTING_DB_USER",
                        "accounting_app",
                        "ACCOUNTING_DB_PASSWORD",
                        "accounting_app",
                        "KAFKA_USERNAME",
                        "accounting",
                        "KAFKA_PASSWORD",
                        KAFKA_PASSWORDS.get("accounting"),
                        "ACCOUNTING_REPLAY_KAFKA_USERNAME",
                        "replay",
                        "ACCOUNTING_REPLAY_KAFKA_PASSWORD",
                        KAFKA_PASSWORDS.get("replay")),
                8082,
                "/readyz"));

        say("""
                the pipeline is up (logs in %s)
                  payments-api         http://127.0.0.1:8080   (API key for client-a: local-key-client-a)
                  accounting-consumer  http://127.0.0.1:8082/ledger/payments/{id}
                  operations           cdc-relay http://127.0.0.1:8081, payments-api http://127.0.0.1:9080,
                                       accounting-consumer http://127.0.0.1:9082: /actuator/health is open,
                                       the rest (and the relay's /admin) needs 'Authorization: Bearer local-admin-token'
                  ledger               'Authorization: Bearer local-admin-token' too
                  consumer's DLT and parked events: java -jar embedded-infra/target/embedded-infra-*-exec.jar dlt list (or parked list)
                  PostgreSQL           127.0.0.1:%d, scram-sha-256 (services: payments_app, relay, accounting_app;
                                       admin: postgres/postgres)
                  Kafka                127.0.0.1:%d, SASL_PLAINTEXT + SCRAM-SHA-256 (admin/admin-secret; services:
                                       relay, accounting, and replay for the consumer's /admin/dead-letters)
                try:
                  curl -s -X POST http://127.0.0.1:8080/payments -H 'Authorization: Bearer local-key-client-a' \\
                       -H 'Idempotency-Key: demo-1' -H 'Content-Type: application/json' \\
                       -d '{"amount":"25.00","currency":"EUR"}'
                Ctrl-C stops everything.""".formatted(logs, pgPort, kafkaPort));
        new CountDownLatch(1).await();
    }

    /** A data directory from a build without passwords (trust, plaintext Kafka) cannot be upgraded in place. */
    /**
     * Refuses a data directory this build cannot run: one from before authentication was required, or a PostgreSQL
     * cluster of another major version (its files are incompatible; the server would refuse them less clearly).
     */
    static void checkLayout(Path home) throws IOException {
        boolean used = Files.exists(home.resolve("postgres")) || Files.exists(home.resolve("kafka"));
        Path layout = home.resolve("layout");
        if (used && (!Files.exists(layout) || !Files.readString(layout).strip().equals(LAYOUT))) {
            throw new IllegalStateException(home + " was created by an older build (PostgreSQL trusting every "
                    + "connection, Kafka without authentication); delete it for a clean slate");
        }
        Path cluster = home.resolve("postgres").resolve("PG_VERSION");
        if (Files.exists(cluster) && !Files.readString(cluster).strip().equals(PostgresServer.MAJOR_VERSION)) {
            throw new IllegalStateException(home.resolve("postgres") + " holds a PostgreSQL "
                    + Files.readString(cluster).strip() + " cluster and this build runs PostgreSQL "
                    + PostgresServer.MAJOR_VERSION + "; delete " + home + " for a clean slate (or pg_upgrade it)");
        }
    }

    private static Process launch(
            String service,
            Path logs,
            Map<String, String> common,
            Map<String, String> own,
            int port,
            String readiness) {
        Path jar = jarOf(service);
        Map<String, String> env = new LinkedHashMap<>(common);
        env.putAll(own);
        say("starting " + service + " on 127.0.0.1:" + port);
        // the relay's restart is on the delivery path: it starts from an extracted jar with a class-data archive
        JavaProcess.Builder builder = service.equals("cdc-relay")
                ? BootJar.start(jar, logs.resolveSibling("cds").resolve(service), env)
                : JavaProcess.builder("-jar", jar.toString());
        Process process = builder.env(env)
                .heap("512m")
                .logTo(logs.resolve(service + ".log"))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!healthy(port, readiness)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException(service + " did not start; see " + logs.resolve(service + ".log"));
            }
            sleep();
        }
        return process;
    }

    private static Path jarOf(String service) {
        Path target = Path.of(service, "target");
        try (Stream<Path> files = Files.exists(target) ? Files.list(target) : Stream.empty()) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + target + "/*-exec.jar: run "
                            + "./mvnw -DskipTests package first (./run-local.sh does)"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean healthy(int port, String path) {
        try {
            return HTTP.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void say(String message) {
        System.out.println("[local-pipeline] " + message);
    }
}
