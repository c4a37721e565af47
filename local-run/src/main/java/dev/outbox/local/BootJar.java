package dev.outbox.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 */
public final class BootJar {

    private BootJar() {}

    /**
     * @param execJar the module's {@code *-exec.jar}
     * @param workDir where the extracted jar and its archive are kept (made again when the jar is newer)
     * @param env     the environment the training run needs to refresh its context
     */
    public static JavaProcess.Builder start(Path execJar, Path workDir, Map<String, String> env) {
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
                        workDir.resolve("extract.log"));
            }
            JavaProcess.Builder builder = JavaProcess.builder("-jar", jar.toString());
            if (!Files.exists(archive)) {
                run(
                        List.of(
                                java(),
                                "-XX:+UseSerialGC",
                                JavaProcess.TEMP_DIRECTORY_OPTION,
                                "-XX:ArchiveClassesAtExit=" + archive,
                                "-Dspring.context.exit=onRefresh",
                                "-Dserver.port=0",
                                "-Dmanagement.server.port=0",
                                "-jar",
                                jar.toString()),
                        env,
                        workDir.resolve("training.log"));
            }
            if (Files.exists(archive)) {
                builder.jvmArg("-XX:SharedArchiveFile=" + archive);
            }
            return builder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(List<String> command, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process process = pb.start();
        try {
            if (!process.waitFor(3, TimeUnit.MINUTES)) {
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
