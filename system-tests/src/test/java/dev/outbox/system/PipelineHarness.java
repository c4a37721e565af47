package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.outbox.contract.Topics;
import dev.outbox.local.BootJar;
import dev.outbox.local.JavaProcess;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.Readiness;
import dev.outbox.local.RelayJvm;
import dev.outbox.reconcile.InvariantChecker;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.cdc.ConnectWorker;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TestPostgres;

import static org.awaitility.Awaitility.await;

/**
 * The whole pipeline as separate processes on this machine: its own PostgreSQL (crashable with SIGQUIT, as
 * {@code pg_ctl -m immediate}), a Kafka broker, payments-api, the relay and the consumer in child JVMs, each of
 * which can be SIGKILLed and started again. Used by the soak command and the end-to-end benchmark. With the mode
 * {@value #CONNECT}, Debezium on a Kafka Connect worker takes the relay's place (see {@link ConnectWorker}): the
 * relay's connector settings, its slot name, the publication the migrations create, its topic, its database role and
 * its Kafka client settings; the relay does not run.
 */
final class PipelineHarness implements AutoCloseable {

    enum Component {
        API,
        RELAY,
        CONSUMER,
        KAFKA,
        POSTGRES
    }

    private final TestPostgres postgres;
    private final ChildKafka kafka;
    private final Map<Component, Process> processes = new EnumMap<>(Component.class);
    private final Map<Component, Integer> ports = new EnumMap<>(Component.class);
    private final Path logs;
    private final String relayMode;
    /**
     * A second relay in the same mode, {@code -Dsoak.standby=true}: it waits for the leadership lock while the first
     * streams. The two swap roles as the leader is killed; {@link #killRelayLeader()} says which one streamed.
     */
    private final boolean withStandby = Boolean.getBoolean("soak.standby");

    private final Process[] relays = new Process[2];
    private final int[] relayPorts = new int[2];
    /** Debezium on Kafka Connect in the relay's place, in the {@value #CONNECT} mode; otherwise {@code null}. */
    private final ConnectWorker connect;
    /** The connection {@link #slotStreamer()} reads the slot on, opened again after PostgreSQL was killed. */
    private Connection slotWatch;

    /** The mode in which a Kafka Connect worker replaces the relay. */
    static final String CONNECT = "connect";
    /** The relay's slot (its default, RELAY_CDC_SLOT) and the publication the payments migrations create. */
    static final String SLOT = "outbox_slot";

    static final String PUBLICATION = "outbox_publication";

    PipelineHarness(String relayMode) throws Exception {
        this.relayMode = relayMode;
        logs = Files.createDirectories(Path.of("target", "harness-" + Long.toHexString(System.nanoTime())));
        postgres = TestPostgres.start(TestPostgres.durableRequested());
        SharedInfra.createDatabases(postgres, "payments", "accounting");
        OutboxRows.migrate(
                postgres.jdbcUrl("payments"), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
        if (CONNECT.equals(relayMode)) {
            try (java.sql.Connection owner = postgres.connect("payments")) {
                ConnectWorker.addCloudEventColumns(owner);
            }
        }
        kafka = ChildKafka.throwAway(Ports.free(), logs.resolve("kafka-data")).start();
        for (Component c : new Component[] {Component.API, Component.RELAY, Component.CONSUMER}) {
            ports.put(c, Ports.free());
        }
        connect = CONNECT.equals(relayMode)
                ? new ConnectWorker(
                        logs.resolve("connect").toAbsolutePath(),
                        ConnectWorker.classpath(),
                        ports.get(Component.RELAY),
                        kafka.bootstrapServers(),
                        relayKafkaClient(),
                        ConnectWorker.connectorSettings(
                                SLOT,
                                PUBLICATION,
                                postgres.host(),
                                postgres.port(),
                                "payments",
                                LocalCredentials.POSTGRES.user(),
                                LocalCredentials.POSTGRES.password(),
                                kafka.bootstrapServers(),
                                Topics.DEFAULT_PATTERN),
                        jvmArgs("connect"))
                : null;
        relayPorts[0] = ports.get(Component.RELAY);
        relayPorts[1] = Ports.free();
        start(Component.API);
        start(Component.RELAY);
        if (withStandby && connect == null) {
            startRelay(1);
        }
        start(Component.CONSUMER);
    }

    boolean withStandby() {
        return withStandby && connect == null;
    }

    /**
     * SIGKILLs whichever of the two relays streams, and answers its index (0 or 1); -1 if none streamed. The other
     * relay is the standby that should take over.
     */
    int killRelayLeader() {
        for (int i = 0; i < 2; i++) {
            if (relays[i] != null && relayStreaming(relayPorts[i])) {
                JavaProcess.kill(relays[i]);
                relays[i] = null;
                if (i == 0) {
                    processes.remove(Component.RELAY);
                }
                return i;
            }
        }
        return -1;
    }

    /** Starts relay {@code index} (0: the first, 1: the standby) and returns when it answers its health check. */
    void startRelay(int index) {
        if (index == 0) {
            startService(Component.RELAY);
            return;
        }
        Map<String, String> env = env(Component.RELAY);
        env.put("RELAY_HTTP_PORT", String.valueOf(relayPorts[1]));
        JavaProcess.Builder builder = RelayJvm.start(execJar(Component.RELAY), Path.of("target", "cds", "relay"), env);
        builder.env(env).heap("384m").logTo(logs.resolve("relay-standby.log"));
        jvmArgs("relay").forEach(builder::jvmArg);
        relays[1] = builder.start();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> Readiness.answers(relayPorts[1], "/actuator/health"));
    }

    TestPostgres postgres() {
        return postgres;
    }

    /** The process id of a running service (the Connect worker for the relay in that mode), to read its memory. */
    long pid(Component component) {
        return connect != null && component == Component.RELAY
                ? connect.pid()
                : processes.get(component).pid();
    }

    /** Whether Debezium on Kafka Connect replaces the relay. */
    boolean connectMode() {
        return connect != null;
    }

    /**
     * The Kafka client settings the relay gets in this harness: its environment sets no KAFKA_SECURITY_PROTOCOL, so
     * relay.yaml's default, PLAINTEXT, on a broker without SASL or ACLs (the harness's broker is not secured).
     */
    private static Map<String, String> relayKafkaClient() {
        return Map.of("security.protocol", "PLAINTEXT");
    }

    private static List<String> jvmArgs(String component) {
        return java.util.Arrays.stream(System.getProperty("harness.jvmArgs", "").split(" "))
                .filter(arg -> !arg.isBlank())
                .map(arg -> arg.replace("{component}", component))
                .toList();
    }

    String consumerUrl() {
        return "http://127.0.0.1:" + ports.get(Component.CONSUMER);
    }

    String apiUrl() {
        return "http://127.0.0.1:" + ports.get(Component.API);
    }

    /** Starts a component and returns when it is healthy (or, for Kafka and PostgreSQL, accepting connections). */
    void start(Component component) {
        switch (component) {
            case KAFKA -> kafka.start();
            case POSTGRES -> {}
            case RELAY -> {
                if (connect == null) {
                    startService(component);
                } else {
                    connect.start();
                    // the slot exists and streams before the first payment, as the relay's does when it is healthy
                    await().atMost(Duration.ofSeconds(120))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> slotStreamer() != 0);
                }
            }
            default -> startService(component);
        }
    }

    private void startService(Component component) {
        launch(component);
        awaitHealthy(component);
    }

    /**
     * Starts a service's JVM and returns at once, so that a caller can time something else than its health first: the
     * soak times a restarted relay's stream without health requests running cold beside its start.
     */
    void launch(Component component) {
        // each service as deployed: its executable jar, extracted, with its class-data archive (see BootJar),
        // so a dependency missing from a jar fails here and not only in the local run; both are kept across runs
        // and made again only when the jar is newer
        Path cds = Path.of("target", "cds", component.name().toLowerCase());
        JavaProcess.Builder builder = component == Component.RELAY
                ? RelayJvm.start(execJar(component), cds, env(component))
                : BootJar.start(execJar(component), cds, env(component));
        builder.env(env(component))
                .heap("384m")
                .logTo(logs.resolve(component.name().toLowerCase() + ".log"));
        jvmArgs(component.name().toLowerCase()).forEach(builder::jvmArg);
        Process p = builder.start();
        processes.put(component, p);
        if (component == Component.RELAY) {
            relays[0] = p;
        }
    }

    /** Returns when the service started by {@link #launch} answers its health check. */
    void awaitHealthy(Component component) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> Readiness.answers(
                        ports.get(component), component == Component.RELAY ? "/actuator/health" : "/readyz"));
    }

    /** SIGKILL for processes; SIGQUIT to the postmaster for PostgreSQL, which then recovers and comes back. */
    void kill(Component component) {
        switch (component) {
            case KAFKA -> kafka.kill();
            case POSTGRES -> postgres.restartImmediately();
            default -> {
                if (component == Component.RELAY && connect != null) {
                    throw new UnsupportedOperationException("the Connect worker is not killed in this harness");
                }
                Process p = processes.remove(component);
                if (p != null) {
                    JavaProcess.kill(p);
                }
                if (component == Component.RELAY) {
                    relays[0] = null;
                }
            }
        }
    }

    InvariantChecker.Report check(boolean countWire) throws Exception {
        try (Connection p = postgres.connect("payments");
                Connection a = postgres.connect("accounting")) {
            return InvariantChecker.check(
                    p, a, "accounting", countWire ? kafka.adminClientProperties() : null, "payments.payment.events");
        }
    }

    /**
     * The component's environment; {@code -Dharness.relayEnv=K=V,K=V} adds to the relay's, {@code harness.apiEnv}
     * to the API's and {@code harness.consumerEnv} to the consumer's, to try settings.
     */
    private Map<String, String> env(Component component) {
        Map<String, String> env = new java.util.HashMap<>(baseEnv(component));
        String added = "harness." + component.name().toLowerCase() + "Env";
        for (String pair : System.getProperty(added, "").split(",")) {
            if (pair.contains("=")) {
                env.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        return env;
    }

    private Map<String, String> baseEnv(Component component) {
        String kafkaServers = kafka.bootstrapServers();
        return switch (component) {
            case API ->
                Map.of(
                        "PAYMENTS_DB_URL", postgres.jdbcUrl("payments"),
                        "PAYMENTS_HTTP_PORT", String.valueOf(ports.get(component)),
                        "PAYMENTS_MANAGEMENT_PORT", "0");
            case RELAY ->
                Map.of(
                        "RELAY_MODE",
                        relayMode,
                        "RELAY_DB_PORT",
                        String.valueOf(postgres.port()),
                        "RELAY_DB_NAME",
                        "payments",
                        "KAFKA_BOOTSTRAP_SERVERS",
                        kafkaServers,
                        "RELAY_HTTP_PORT",
                        String.valueOf(ports.get(component)),
                        "RELAY_SAFETY_NET_GRACE",
                        "20s",
                        "RELAY_SAFETY_NET_INTERVAL",
                        "5s");
            // the reconcile job on, as the superuser like every service here (its own roles: LeastPrivilege tests);
            // its objective above the relay's safety-net grace (20 s) + a lease + the consumer's retries
            case CONSUMER ->
                Map.ofEntries(
                        Map.entry("ACCOUNTING_DB_URL", postgres.jdbcUrl("accounting")),
                        Map.entry("KAFKA_BOOTSTRAP_SERVERS", kafkaServers),
                        Map.entry("ACCOUNTING_HTTP_PORT", String.valueOf(ports.get(component))),
                        Map.entry("ACCOUNTING_MANAGEMENT_PORT", "0"),
                        Map.entry("ACCOUNTING_RECONCILE_ENABLED", "true"),
                        Map.entry("ACCOUNTING_RECONCILE_WINDOW", "5s"),
                        Map.entry("ACCOUNTING_RECONCILE_OBJECTIVE", "60s"),
                        Map.entry("ACCOUNTING_RECONCILE_PAYMENTS_URL", postgres.jdbcUrl("payments")),
                        Map.entry("ACCOUNTING_RECONCILE_PAYMENTS_USER", LocalCredentials.POSTGRES.user()),
                        Map.entry("ACCOUNTING_RECONCILE_PAYMENTS_PASSWORD", LocalCredentials.POSTGRES.password()),
                        Map.entry("ACCOUNTING_RECONCILE_DB_USER", LocalCredentials.POSTGRES.user()),
                        Map.entry("ACCOUNTING_RECONCILE_DB_PASSWORD", LocalCredentials.POSTGRES.password()));
            default -> throw new IllegalArgumentException(component.name());
        };
    }

    /** The service's executable jar, which the reactor built before this module's tests run. */
    private static Path execJar(Component component) {
        String module = switch (component) {
            case API -> "payments-api";
            case RELAY -> "cdc-relay";
            case CONSUMER -> "accounting-consumer";
            default -> throw new IllegalArgumentException(component.name());
        };
        try (var files = Files.list(Path.of("..", module, "target"))) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar"))
                    .findFirst()
                    .orElseThrow(() ->
                            new IllegalStateException("build " + module + " first (./mvnw -pl system-tests -am)"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Records on the events topic and distinct event ids among them, as of now. */
    long[] wire() {
        return InvariantChecker.wire(kafka.adminClientProperties(), Topics.PAYMENT_EVENTS);
    }

    /**
     * The process id of the walsender streaming the relay's slot, 0 when none does: PostgreSQL's view of whether a
     * relay reads the WAL, on a connection held for it. Timing a relay's start by its health endpoint would cost the
     * relay the CPU it is timed on: ten requests a second while it starts, each running its health checks cold.
     */
    synchronized int slotStreamer() {
        try {
            if (slotWatch == null) {
                slotWatch = postgres.connect("payments");
            }
            try (var s = slotWatch.prepareStatement(
                    "SELECT coalesce(active_pid, 0) FROM pg_replication_slots WHERE slot_name = ?")) {
                s.setString(1, SLOT);
                try (var rs = s.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : 0;
                }
            }
        } catch (java.sql.SQLException e) {
            // PostgreSQL was killed: a new connection next time
            closeSlotWatch();
            return 0;
        }
    }

    private synchronized void closeSlotWatch() {
        if (slotWatch != null) {
            try {
                slotWatch.close();
            } catch (java.sql.SQLException ignored) {
                // it is gone already
            }
            slotWatch = null;
        }
    }

    private static boolean relayStreaming(int port) {
        try {
            HttpResponse<String> health = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                                    .header("Authorization", "Bearer local-admin-token")
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return health.body().contains("\"streaming\":true");
        } catch (Exception e) {
            return false;
        }
    }

    /** The relay's last "Started ... (process running for N)": JVM start plus Spring, in seconds. */
    String relayStartupSeconds() throws java.io.IOException {
        List<String> started = Files.readAllLines(logs.resolve("relay.log")).stream()
                .filter(l -> l.contains("Started RelayApplication"))
                .toList();
        if (started.isEmpty()) {
            return "?";
        }
        String last = started.get(started.size() - 1);
        int at = last.indexOf("process running for ");
        return at < 0 ? "?" : last.substring(at + 20).replaceAll("[^0-9.]", "");
    }

    /** Client settings for the harness's broker: what a reader of its topics needs. */
    Map<String, Object> kafkaClient() {
        return kafka.adminClientProperties();
    }

    /**
     * Makes the broker stamp each record of {@code topic} with the time it appended it (LogAppendTime) instead of the
     * producer's: with acks=all on one broker, when the publisher's send was acknowledged, whoever the publisher is.
     */
    void stampAppendTime(String topic) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(kafka.adminClientProperties())) {
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            var stamp = new org.apache.kafka.clients.admin.AlterConfigOp(
                    new org.apache.kafka.clients.admin.ConfigEntry("message.timestamp.type", "LogAppendTime"),
                    org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(stamp)))
                    .all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Records on a topic as of now (the sum of its end offsets), 0 when it does not exist. */
    long records(String topic) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(kafka.adminClientProperties())) {
            if (!admin.listTopics()
                    .names()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .contains(topic)) {
                return 0;
            }
            var partitions = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .get(topic)
                    .partitions();
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest =
                    new java.util.HashMap<>();
            partitions.forEach(p -> latest.put(
                    new org.apache.kafka.common.TopicPartition(topic, p.partition()),
                    org.apache.kafka.clients.admin.OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get(30, java.util.concurrent.TimeUnit.SECONDS).values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        }
    }

    @Override
    public void close() {
        closeSlotWatch();
        if (connect != null) {
            connect.stop();
        }
        processes.values().forEach(JavaProcess::kill);
        processes.clear();
        if (relays[1] != null) {
            JavaProcess.kill(relays[1]);
        }
        kafka.close();
        postgres.close();
    }
}
