package dev.outbox.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;

/**
 * The one-command local run, without Docker: a durable embedded PostgreSQL (wal_level=logical, scram-sha-256 for
 * every connection) and a secured KRaft Kafka broker (SASL/SCRAM, ACLs) in this JVM, then payments-api, cdc-relay
 * and accounting-consumer as child JVMs from their built jars, each with its own database role and Kafka principal,
 * configured by the same environment variables as in compose. Ctrl-C stops everything it started.
 */
public final class LocalPipeline {

    /** Written into a data directory this build created; an older one (trust, plaintext Kafka) is refused. */
    private static final String LAYOUT = "scram-v1";

    private LocalPipeline() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("tail")) {
            TopicTail.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("check")) {
            LocalTools.check(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Path home = Path.of(env("LOCAL_DATA_DIR", ".local")).toAbsolutePath();
        checkLayout(home);
        Path logs = Files.createDirectories(home.resolve("logs"));
        int pgPort = Integer.parseInt(env("PG_PORT", "5432"));
        int kafkaPort = Integer.parseInt(env("KAFKA_PORT", "9092"));
        int controllerPort = Integer.parseInt(env("KAFKA_CONTROLLER_PORT", "9093"));

        say("starting PostgreSQL on 127.0.0.1:" + pgPort + " (data in " + home.resolve("postgres") + ")");
        // stopped by this run's own shutdown hook, after the services: not by one of its own, which would stop it
        // while they still shut down
        PostgresServer postgres = PostgresServer.start(pgPort, home.resolve("postgres"), true, Map.of(), false);
        List<Process> services = new CopyOnWriteArrayList<>();
        AtomicReference<KafkaBroker> broker = new AtomicReference<>();
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
                            KafkaBroker started = broker.get();
                            if (started != null) {
                                started.close();
                            }
                            postgres.close();
                        },
                        "local-pipeline-shutdown"));
        try {
            if (postgres.applyInitScript()) {
                say("created the databases and the services' least-privilege roles (docker/postgres/init.sql)");
            }
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "could not create the roles; a data directory from an older build "
                            + "has the databases without them: delete " + home + " for a clean slate",
                    e);
        }
        say("starting Kafka on 127.0.0.1:" + kafkaPort + " (SASL/SCRAM, ACLs of docker/kafka/acls.txt)");
        KafkaBroker kafka = new KafkaBroker(
                        kafkaPort, controllerPort, home.resolve("kafka"), LocalCredentials.KAFKA_ADMIN.password())
                .start();
        broker.set(kafka);
        try (Admin admin = Admin.create(kafka.adminClientProperties())) {
            KafkaAccess.provision(admin, LocalCredentials.kafkaPrincipals());
        }
        Files.writeString(home.resolve("layout"), LAYOUT);

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
                merged(
                        Map.of("PAYMENTS_DB_URL", db + "payments"),
                        LocalCredentials.PAYMENTS_DB.as("PAYMENTS_DB_USER", "PAYMENTS_DB_PASSWORD")),
                8080,
                "/readyz"));
        services.add(launch(
                "cdc-relay",
                logs,
                common,
                merged(
                        Map.of("RELAY_DB_HOSTS", "127.0.0.1:" + pgPort, "RELAY_DB_NAME", "payments"),
                        LocalCredentials.RELAY_DB.as("RELAY_DB_USER", "RELAY_DB_PASSWORD"),
                        LocalCredentials.KAFKA_RELAY.as("KAFKA_USERNAME", "KAFKA_PASSWORD")),
                8081,
                "/actuator/health"));
        services.add(launch(
                "accounting-consumer",
                logs,
                common,
                merged(
                        Map.of("ACCOUNTING_DB_URL", db + "accounting"),
                        LocalCredentials.ACCOUNTING_DB.as("ACCOUNTING_DB_USER", "ACCOUNTING_DB_PASSWORD"),
                        LocalCredentials.KAFKA_ACCOUNTING.as("KAFKA_USERNAME", "KAFKA_PASSWORD"),
                        LocalCredentials.KAFKA_REPLAY.as(
                                "ACCOUNTING_REPLAY_KAFKA_USERNAME", "ACCOUNTING_REPLAY_KAFKA_PASSWORD"),
                        Map.of(
                                "ACCOUNTING_RECONCILE_ENABLED",
                                "true",
                                "ACCOUNTING_RECONCILE_PAYMENTS_URL",
                                db + "payments"),
                        LocalCredentials.RECONCILER_DB.as(
                                "ACCOUNTING_RECONCILE_PAYMENTS_USER", "ACCOUNTING_RECONCILE_PAYMENTS_PASSWORD"),
                        LocalCredentials.RECONCILER_DB.as(
                                "ACCOUNTING_RECONCILE_DB_USER", "ACCOUNTING_RECONCILE_DB_PASSWORD"),
                        LocalCredentials.KAFKA_RECONCILER.as(
                                "ACCOUNTING_RECONCILE_KAFKA_USERNAME", "ACCOUNTING_RECONCILE_KAFKA_PASSWORD")),
                8082,
                "/readyz"));

        say("""
                the pipeline is up (logs in %1$s)
                  payments-api         http://127.0.0.1:8080   (API key for client-a: %4$s)
                  accounting-consumer  http://127.0.0.1:8082/ledger/payments/{id}
                  operations           cdc-relay http://127.0.0.1:8081, payments-api http://127.0.0.1:9080,
                                       accounting-consumer http://127.0.0.1:9082: /actuator/health is open,
                                       the rest (and the relay's /admin) needs 'Authorization: Bearer %5$s'
                  ledger               'Authorization: Bearer %5$s' too
                  consumer's DLT and parked events:
                                       java -jar accounting-consumer/target/accounting-consumer-*-exec.jar dlt list
                  PostgreSQL           127.0.0.1:%2$d, scram-sha-256 (services: %6$s, %7$s, %8$s;
                                       admin: %9$s/%10$s)
                  Kafka                127.0.0.1:%3$d, SASL_PLAINTEXT + SCRAM-SHA-256 (admin: %11$s/%12$s)
                try:
                  curl -s -X POST http://127.0.0.1:8080/payments -H 'Authorization: Bearer %4$s' \\
                       -H 'Idempotency-Key: demo-1' -H 'Content-Type: application/json' \\
                       -d '{"amount":"25.00","currency":"EUR"}'
                Ctrl-C stops everything.""".formatted(
                        logs,
                        pgPort,
                        kafkaPort,
                        LocalCredentials.CLIENT_A_KEY,
                        LocalCredentials.ADMIN_TOKEN,
                        LocalCredentials.PAYMENTS_DB.user(),
                        LocalCredentials.RELAY_DB.user(),
                        LocalCredentials.ACCOUNTING_DB.user(),
                        LocalCredentials.POSTGRES.user(),
                        LocalCredentials.POSTGRES.password(),
                        LocalCredentials.KAFKA_ADMIN.user(),
                        LocalCredentials.KAFKA_ADMIN.password()));
        new CountDownLatch(1).await();
    }

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
        // the relay's restart is on the delivery path: it starts from an extracted jar with a class-data archive, and
        // with its own JVM options
        JavaProcess.Builder builder = JavaProcess.builder("-jar", jar.toString());
        if (service.equals("cdc-relay")) {
            builder = RelayJvm.start(jar, logs.resolveSibling("cds").resolve(service), env);
        }
        Process process = builder.env(env)
                .heap("512m")
                .logTo(logs.resolve(service + ".log"))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Readiness.answers(port, readiness)) {
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

    private static void sleep() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @SafeVarargs
    private static Map<String, String> merged(Map<String, String>... parts) {
        Map<String, String> all = new LinkedHashMap<>();
        for (Map<String, String> part : parts) {
            all.putAll(part);
        }
        return all;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void say(String message) {
        System.out.println("[local-pipeline] " + message);
    }
}
