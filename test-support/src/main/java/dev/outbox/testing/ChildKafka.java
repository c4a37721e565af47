package dev.outbox.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.outbox.local.JavaProcess;
import dev.outbox.local.Kafka;
import dev.outbox.local.KafkaBroker;
import dev.outbox.local.LocalCredentials;

/**
 * A {@link KafkaBroker} in its own JVM, so that a test can SIGKILL it and start it again on the same port and log
 * directory (the log survives, so a restarted broker comes back with every acknowledged record).
 */
public final class ChildKafka implements Kafka {
    private final int port;
    private final int controllerPort = Ports.free();
    private final Path logDir;
    private final Path logFile;
    private final String adminPassword;
    private final boolean throwAway;
    private Process process;
    private boolean c1Only;

    public ChildKafka(int port, Path logDir) {
        this(port, logDir, null);
    }

    /** @param adminPassword the admin's SCRAM password for a secured broker, {@code null} for plaintext */
    public ChildKafka(int port, Path logDir, String adminPassword) {
        this(port, logDir, adminPassword, false);
    }

    private ChildKafka(int port, Path logDir, String adminPassword, boolean throwAway) {
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
    public static ChildKafka throwAway(int port, Path logDir) {
        return new ChildKafka(port, logDir, null, true);
    }

    /**
     * The child JVM's entry point: {@code ChildKafka <port> <controllerPort> <logDir>}, secured when the environment
     * holds {@code KAFKA_ADMIN_PASSWORD}.
     */
    public static void main(String[] args) throws InterruptedException {
        KafkaBroker broker = new KafkaBroker(
                        Integer.parseInt(args[0]),
                        Integer.parseInt(args[1]),
                        Path.of(args[2]),
                        System.getenv("KAFKA_ADMIN_PASSWORD"))
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "kafka-shutdown"));
        new CountDownLatch(1).await();
    }

    /**
     * Without the C2 compiler: the broker starts sooner and runs its hot code slower. For tests of what happens,
     * never for a figure (the benchmarks and the soak run the broker as users do).
     */
    public ChildKafka c1Only() {
        this.c1Only = true;
        return this;
    }

    public synchronized ChildKafka start() {
        JavaProcess.Builder builder = JavaProcess.builder(
                ChildKafka.class.getName(), String.valueOf(port), String.valueOf(controllerPort), logDir.toString());
        if (adminPassword != null) {
            builder.env("KAFKA_ADMIN_PASSWORD", adminPassword);
        }
        if (c1Only) {
            builder.jvmArg("-XX:TieredStopAtLevel=1");
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
        Map<String, Object> props = new HashMap<>(KafkaBroker.clientSecurity(
                adminPassword == null ? null : LocalCredentials.KAFKA_ADMIN.user(), adminPassword));
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
