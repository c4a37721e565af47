package dev.outbox.local;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool$;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker + controller), bound to 127.0.0.1. Plaintext for
 * the tests that do not test security, or {@linkplain #secured secured}: SASL/SCRAM-SHA-256 on every listener, the
 * controller's included (a plaintext controller port would let any local process create ACLs), and the
 * StandardAuthorizer with no access for a principal without ACLs; only the admin principal, bootstrapped into the
 * metadata when the log directory is formatted, is a super user.
 * It runs in the JVM that starts it (the tests also start it in a child JVM of its own, to kill it for real). The
 * log directory survives a restart, so a stopped broker comes back with every acknowledged record.
 */
public final class KafkaBroker implements Kafka {

    public static final String MECHANISM = "SCRAM-SHA-256";

    private final int port;
    private final int controllerPort;
    private final Path logDir;
    private final String adminPassword;
    private KafkaRaftServer server;

    /**
     * @param adminPassword {@code null} for a plaintext broker; else every client authenticates with SCRAM and is
     *                      authorized by ACL, and this password of the admin ({@link LocalCredentials#KAFKA_ADMIN}'s
     *                      user) is written into the metadata when {@code logDir} is formatted (it must stay the same
     *                      for that directory)
     */
    public KafkaBroker(int port, int controllerPort, Path logDir, String adminPassword) {
        this.port = port;
        this.controllerPort = controllerPort;
        this.logDir = logDir;
        this.adminPassword = adminPassword;
    }

    public boolean isSecured() {
        return adminPassword != null;
    }

    @Override
    public Map<String, Object> adminClientProperties() {
        Map<String, Object> props =
                new HashMap<>(clientSecurity(isSecured() ? LocalCredentials.KAFKA_ADMIN.user() : null, adminPassword));
        props.put("bootstrap.servers", bootstrapServers());
        return props;
    }

    /**
     * The client settings for one principal: SASL_PLAINTEXT with SCRAM-SHA-256, or plaintext when {@code user} is
     * {@code null}.
     */
    public static Map<String, Object> clientSecurity(String user, String password) {
        if (user == null) {
            return Map.of("security.protocol", "PLAINTEXT");
        }
        return Map.of(
                "security.protocol",
                "SASL_PLAINTEXT",
                "sasl.mechanism",
                MECHANISM,
                "sasl.jaas.config",
                jaas(user, password));
    }

    public static String jaas(String user, String password) {
        if (user.contains("\"") || password.contains("\"") || password.contains(",")) {
            throw new IllegalArgumentException("Kafka user names and passwords may hold no quote or comma");
        }
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    public synchronized KafkaBroker start() {
        Properties props = properties();
        format(props);
        server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
        server.startup();
        awaitListening(port, Duration.ofSeconds(60));
        return this;
    }

    @Override
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    private Properties properties() {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        String protocol = isSecured() ? "SASL_PLAINTEXT" : "PLAINTEXT";
        p.put("listeners", protocol + "://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", protocol + "://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", protocol + ":" + protocol + ",CONTROLLER:" + protocol);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", protocol);
        if (isSecured()) {
            p.put("sasl.enabled.mechanisms", MECHANISM);
            p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
            p.put("sasl.mechanism.controller.protocol", MECHANISM);
            p.put(
                    "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
                    jaas(LocalCredentials.KAFKA_ADMIN.user(), adminPassword));
            p.put(
                    "listener.name.controller.scram-sha-256.sasl.jaas.config",
                    jaas(LocalCredentials.KAFKA_ADMIN.user(), adminPassword));
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("super.users", "User:" + LocalCredentials.KAFKA_ADMIN.user());
            p.put("allow.everyone.if.no.acl.found", "false");
        }
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.putAll(brokerSettings(isSecured()));
        return p;
    }

    /**
     * The settings of every single-node broker the tests use besides its listeners and security, in this JVM, a
     * child JVM or a container (which takes them as {@code KAFKA_*} variables), so topics get the same partitions
     * and groups the same timing on every path.
     */
    public static Map<String, String> brokerSettings(boolean secured) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("num.partitions", "3");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "3");
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        // secured: topics are provisioned by the admin, as in production; a client cannot create one by asking for it
        settings.put("auto.create.topics.enable", String.valueOf(!secured));
        settings.put("log.flush.interval.messages", "1");
        return settings;
    }

    private void format(Properties props) {
        try {
            Files.createDirectories(logDir);
            if (Files.exists(logDir.resolve("meta.properties"))) {
                return;
            }
            Path config = Files.createTempFile("kafka-server", ".properties");
            try (var out = Files.newOutputStream(config)) {
                props.store(out, "embedded broker");
            }
            List<String> args = new ArrayList<>(List.of(
                    "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--ignore-formatted"));
            if (isSecured()) {
                args.add("--add-scram");
                args.add(MECHANISM + "=[name=" + LocalCredentials.KAFKA_ADMIN.user() + ",password=" + adminPassword
                        + "]");
            }
            int rc = StorageTool$.MODULE$.execute(
                    args.toArray(String[]::new), new PrintStream(PrintStream.nullOutputStream()));
            Files.deleteIfExists(config);
            if (rc != 0) {
                throw new IllegalStateException("kafka storage format failed with exit code " + rc);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitListening(int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 300);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker never listened on " + port);
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
