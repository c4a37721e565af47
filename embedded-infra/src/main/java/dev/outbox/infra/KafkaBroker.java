package dev.outbox.infra;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool$;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker + controller), bound to 127.0.0.1.
 * It runs in-process ({@link #start()}), or as a child JVM through {@link #main(String[])} so that tests can
 * stop it for real ({@link ChildProcess}). The log directory survives a restart, so a stopped broker comes back
 * with every acknowledged record.
 */
public final class KafkaBroker implements AutoCloseable {

    private final int port;
    private final int controllerPort;
    private final Path logDir;
    private KafkaRaftServer server;

    public KafkaBroker(int port, Path logDir) {
        this(port, Ports.free(), logDir);
    }

    public KafkaBroker(int port, int controllerPort, Path logDir) {
        this.port = port;
        this.controllerPort = controllerPort;
        this.logDir = logDir;
    }

    public synchronized KafkaBroker start() {
        Properties props = properties();
        format(props);
        server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
        server.startup();
        Ports.awaitListening(port, Duration.ofSeconds(60));
        return this;
    }

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
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.put("num.partitions", "3");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "3");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "true");
        p.put("log.flush.interval.messages", "1");
        return p;
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
            int rc = StorageTool$.MODULE$.execute(new String[] {
                    "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--ignore-formatted"},
                    new PrintStream(PrintStream.nullOutputStream()));
            Files.deleteIfExists(config);
            if (rc != 0) {
                throw new IllegalStateException("kafka storage format failed with exit code " + rc);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Child-JVM entry point: {@code KafkaBroker <port> <controllerPort> <logDir>}; prints READY when it accepts
     * connections.
     */
    public static void main(String[] args) throws InterruptedException {
        KafkaBroker broker = new KafkaBroker(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Path.of(args[2]))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "kafka-shutdown"));
        System.out.println("READY " + broker.bootstrapServers());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** A broker in its own JVM that a test can SIGKILL and start again on the same port and log directory. */
    public static final class ChildProcess implements AutoCloseable {
        private final int port;
        private final int controllerPort = Ports.free();
        private final Path logDir;
        private final Path logFile;
        private Process process;

        public ChildProcess(int port, Path logDir) {
            this.port = port;
            this.logDir = logDir;
            this.logFile = logDir.resolveSibling(logDir.getFileName() + ".log");
        }

        public synchronized ChildProcess start() {
            process = JavaProcess.builder(KafkaBroker.class.getName(), String.valueOf(port),
                            String.valueOf(controllerPort), logDir.toString())
                    .heap("512m")
                    .logTo(logFile)
                    .start();
            Ports.awaitListening(port, Duration.ofSeconds(90));
            return this;
        }

        /** SIGKILL: the broker gets no chance to flush or say goodbye. */
        public synchronized void kill() {
            if (process != null) {
                JavaProcess.kill(process);
                process = null;
                Ports.awaitClosed(port, Duration.ofSeconds(30));
            }
        }

        public String bootstrapServers() {
            return "127.0.0.1:" + port;
        }

        public boolean isAlive() {
            return process != null && process.isAlive();
        }

        @Override
        public void close() {
            kill();
        }
    }
}
