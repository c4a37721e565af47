package dev.outbox.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Spring Boot executable jar started the way Spring Boot recommends for a fast start: extracted, with a
 * class-data-sharing archive recorded by a training run (the application refreshes its context and exits). The relay
 * is started this way: its restart is on the delivery path, and on a busy machine most of it is the JVM loading and
 * verifying classes, which the archive spares it. A failed training run only costs the speed-up.
 *
 * <p>A context refreshed is not all a service loads before it does its work: the relay loads some 3,000 more classes
 * (Debezium's connector, Kafka's and PostgreSQL's clients) once its engine starts. {@link #startTrainedUntil} records
 * them too: its training run is the service as it runs, stopped with SIGTERM once its log shows the given line (the
 * archive is written as the JVM exits).
 */
public final class BootJar {

    private BootJar() {}

    /**
     * @param execJar the module's {@code *-exec.jar}
     * @param workDir where the extracted jar and its archive are kept (made again when the jar is newer)
     * @param env     the environment the training run needs to refresh its context
     */
    public static JavaProcess.Builder start(Path execJar, Path workDir, Map<String, String> env) {
        return start(execJar, workDir, env, null, TRAINING_PORTS);
    }

    /** The training run's ports: free ones, its management port one of its own, as the services run it. */
    static final List<String> TRAINING_PORTS = List.of("-Dserver.port=0", "-Dmanagement.server.port=0");

    /**
     * As {@link #start}, with a training run that runs the service until its log shows {@code line} (for at most
     * {@link #TRAINING_TIME}), then stops it with SIGTERM.
     *
     * @param trainingOptions JVM options of the training run only: its ports (the service's own may be in use), and
     *     e.g. a logger's level that makes {@code line} appear
     */
    public static JavaProcess.Builder startTrainedUntil(
            Path execJar, Path workDir, Map<String, String> env, String line, List<String> trainingOptions) {
        return start(execJar, workDir, env, line, trainingOptions);
    }

    /** The longest a training run waits for its line. */
    static final Duration TRAINING_TIME = Duration.ofSeconds(90);

    private static JavaProcess.Builder start(
            Path execJar, Path workDir, Map<String, String> env, String untilLine, List<String> trainingOptions) {
        try {
            Path extracted = workDir.resolve("extracted");
            Path jar = extracted.resolve(execJar.getFileName());
            Path archive = workDir.resolve("app.jsa");
            if (!Files.exists(jar)
                    || Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(execJar)) < 0) {
                delete(workDir);
                Files.createDirectories(workDir);
                run(
                        List.of(
                                java(),
                                "-Djarmode=tools",
                                "-jar",
                                execJar.toString(),
                                "extract",
                                "--destination",
                                extracted.toString()),
                        env,
                        workDir.resolve("extract.log"),
                        null);
            }
            JavaProcess.Builder builder = JavaProcess.builder("-jar", jar.toString());
            if (!Files.exists(archive)) {
                List<String> training = new ArrayList<>(List.of(
                        java(),
                        "-XX:+UseSerialGC",
                        JavaProcess.TEMP_DIRECTORY_OPTION,
                        "-XX:ArchiveClassesAtExit=" + archive));
                training.addAll(trainingOptions);
                if (untilLine == null) {
                    training.add("-Dspring.context.exit=onRefresh");
                }
                training.addAll(List.of("-jar", jar.toString()));
                run(training, env, workDir.resolve("training.log"), untilLine);
            }
            if (Files.exists(archive)) {
                builder.jvmArg("-XX:SharedArchiveFile=" + archive);
            }
            return builder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code command} to its end (for at most 3 minutes), or, given {@code untilLine}, until {@code log} holds
     * that line (for at most {@link #TRAINING_TIME}) and then stops it with SIGTERM.
     */
    private static void run(List<String> command, Map<String, String> env, Path log, String untilLine)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process process = pb.start();
        try {
            if (untilLine != null) {
                long deadline = System.nanoTime() + TRAINING_TIME.toNanos();
                while (process.isAlive()
                        && System.nanoTime() < deadline
                        && !new String(Files.readAllBytes(log), StandardCharsets.UTF_8).contains(untilLine)) {
                    Thread.sleep(200);
                }
                process.destroy();
            }
            if (!process.waitFor(untilLine == null ? 3 : 1, TimeUnit.MINUTES)) {
                JavaProcess.kill(process);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            JavaProcess.kill(process);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
