package dev.outbox.infra;

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
import java.util.concurrent.CountDownLatch;

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
 * It runs in-process ({@link #start()}), or as a child JVM through {@link #main(String[])} so that tests can
 * stop it for real ({@link ChildProcess}). The log directory survives a restart, so a stopped broker comes back
 * with every acknowledged record.
 */
public final class KafkaBroker implements Kafka {

    public static final String ADMIN = "admin";
    static final String MECHANISM = "SCRAM-SHA-256";

    private final int port;
    private final int controllerPort;
    private final Path logDir;
    private final String adminPassword;
    private final boolean throwAway;
    private KafkaRaftServer server;

    public KafkaBroker(int port, Path logDir) {
        this(port, Ports.free(), logDir);
    }

    public KafkaBroker(int port, int controllerPort, Path logDir) {
        this(port, controllerPort, logDir, null, false);
    }

    private KafkaBroker(int port, int controllerPort, Path logDir, String adminPassword, boolean throwAway) {
        this.throwAway = throwAway;
        this.port = port;
        this.controllerPort = controllerPort;
        this.logDir = logDir;
        this.adminPassword = adminPassword;
    }

    /** A plaintext broker whose log directory is created for it and deleted when it closes. */
    public static KafkaBroker throwAway(int port) {
        return new KafkaBroker(port, Ports.free(), ThrowAwayDirectory.create("kafka"), null, true);
    }

    /**
     * A broker that authenticates every client with SCRAM and authorizes by ACL. The admin's password is written
     * into the metadata when {@code logDir} is formatted and must stay the same for that directory.
     */
    public static KafkaBroker secured(int port, int controllerPort, Path logDir, String adminPassword) {
        return new KafkaBroker(port, controllerPort, logDir, adminPassword, false);
    }

    public boolean isSecured() {
        return adminPassword != null;
    }

    @Override
    public Map<String, Object> adminClientProperties() {
        Map<String, Object> props = new HashMap<>(clientSecurity(isSecured() ? ADMIN : null, adminPassword));
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

    static String jaas(String user, String password) {
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
        Ports.awaitListening(port, Duration.ofSeconds(60));
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
        if (throwAway) {
            ThrowAwayDirectory.delete(logDir);
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
            p.put("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", jaas(ADMIN, adminPassword));
            p.put("listener.name.controller.scram-sha-256.sasl.jaas.config", jaas(ADMIN, adminPassword));
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("super.users", "User:" + ADMIN);
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
    static Map<String, String> brokerSettings(boolean secured) {
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
                args.add(MECHANISM + "=[name=" + ADMIN + ",password=" + adminPassword + "]");
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

    /**
     * Child-JVM entry point: {@code KafkaBroker <port> <controllerPort> <logDir>}, secured when the environment
     * holds {@code KAFKA_ADMIN_PASSWORD}; prints READY when it accepts connections.
     */
    public static void main(String[] args) throws InterruptedException {
        KafkaBroker broker = new KafkaBroker(
                        Integer.parseInt(args[0]),
                        Integer.parseInt(args[1]),
                        Path.of(args[2]),
                        System.getenv("KAFKA_ADMIN_PASSWORD"),
                        false)
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "kafka-shutdown"));
        System.out.println("READY " + broker.bootstrapServers());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** A broker in its own JVM that a test can SIGKILL and start again on the same port and log directory. */
    public static final class ChildProcess implements Kafka {
        private final int port;
        private final int controllerPort = Ports.free();
        private final Path logDir;
        private final Path logFile;
        private final String adminPassword;
        private final boolean throwAway;
        private Process process;

        public ChildProcess(int port, Path logDir) {
            this(port, logDir, null);
        }

        /** @param adminPassword the admin's SCRAM password for a secured broker, {@code null} for plaintext */
        public ChildProcess(int port, Path logDir, String adminPassword) {
            this(port, logDir, adminPassword, false);
        }

        private ChildProcess(int port, Path logDir, String adminPassword, boolean throwAway) {
            this.throwAway = throwAway;
            this.port = port;
            this.logDir = logDir;
            this.logFile = logDir.resolveSibling(logDir.getFileName() + ".log");
            this.adminPassword = adminPassword;
        }

        /**
         * A plaintext broker whose log directory is deleted when it closes (its log file, beside it, stays): it still
         * survives {@link #kill()} and {@link #start()} in between.
         */
        public static ChildProcess throwAway(int port, Path logDir) {
            return new ChildProcess(port, logDir, null, true);
        }

        public synchronized ChildProcess start() {
            JavaProcess.Builder builder = JavaProcess.builder(
                    KafkaBroker.class.getName(),
                    String.valueOf(port),
                    String.valueOf(controllerPort),
                    logDir.toString());
            if (adminPassword != null) {
                builder.env("KAFKA_ADMIN_PASSWORD", adminPassword);
            }
            process = builder.heap("512m").logTo(logFile).start();
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!Ports.isListening(port)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw failedToStart();
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw failedToStart();
                }
            }
            return this;
        }

        /**
         * A broker that exited, or never listened and is still a live JVM: it is ended (the caller never gets it to
         * close), a throw-away log directory deleted, and the failure points at the broker's log.
         */
        private IllegalStateException failedToStart() {
            IllegalStateException failure = new IllegalStateException("the broker did not listen on " + port
                    + (process.isAlive() ? "" : " (it exited with " + process.exitValue() + ")") + "; see " + logFile);
            try {
                JavaProcess.kill(process);
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            process = null;
            if (throwAway) {
                ThrowAwayDirectory.delete(logDir);
            }
            return failure;
        }

        /** SIGKILL: the broker gets no chance to flush or say goodbye. */
        public synchronized void kill() {
            if (process != null) {
                JavaProcess.kill(process);
                process = null;
                Ports.awaitClosed(port, Duration.ofSeconds(30));
            }
        }

        @Override
        public String bootstrapServers() {
            return "127.0.0.1:" + port;
        }

        @Override
        public Map<String, Object> adminClientProperties() {
            Map<String, Object> props =
                    new HashMap<>(clientSecurity(adminPassword == null ? null : ADMIN, adminPassword));
            props.put("bootstrap.servers", bootstrapServers());
            return props;
        }

        public boolean isAlive() {
            return process != null && process.isAlive();
        }

        /** The broker JVM's process id, while it runs. */
        public synchronized long pid() {
            if (process == null) {
                throw new IllegalStateException("the broker is not running");
            }
            return process.pid();
        }

        @Override
        public void close() {
            kill();
            if (throwAway) {
                ThrowAwayDirectory.delete(logDir);
            }
        }
    }
}
