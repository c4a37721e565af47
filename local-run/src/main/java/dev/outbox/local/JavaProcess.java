package dev.outbox.local;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a main class in a child JVM on this JVM's class path, so a test can kill a real process with SIGKILL.
 */
public final class JavaProcess {

    /** This JVM's temporary directory, passed on to every child. */
    static final String TEMP_DIRECTORY_OPTION = "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir");

    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private JavaProcess() {}

    /**
     * {@code command} to run in a session of its own where the system has {@code setsid} (Linux): its scheduler then
     * shares the CPU between sessions (autogroup) as it does between the containers of compose or the units of
     * systemd, each service as a whole, instead of between every thread of every child and of this JVM, where a
     * restarting service gets one thread's share among the others' busy ones. {@code setsid} replaces itself with the
     * command (it forks only when a process-group leader calls it, which a JVM's child never is), so the
     * {@link Process} is the command's and SIGKILL reaches it. Elsewhere {@code command} as it is.
     */
    public static List<String> inOwnSession(List<String> command) {
        if (!Files.isExecutable(SETSID)) {
            return command;
        }
        List<String> own = new ArrayList<>(command.size() + 1);
        own.add(SETSID.toString());
        own.addAll(command);
        return own;
    }

    public static Builder builder(String mainClass, String... args) {
        return new Builder(mainClass, List.of(args));
    }

    /** SIGKILL the process (and wait for it to be gone). Only processes this JVM started are ever passed here. */
    public static void kill(Process process) {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("process " + process.pid() + " survived SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static final class Builder {
        private final String mainClass;
        private final List<String> args;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private final String classPath = System.getProperty("java.class.path");
        private String heap = "256m";
        private Path logFile;

        private Builder(String mainClass, List<String> args) {
            this.mainClass = mainClass;
            this.args = args;
        }

        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        public Builder env(Map<String, String> values) {
            env.putAll(values);
            return this;
        }

        public Builder jvmArg(String arg) {
            jvmArgs.add(arg);
            return this;
        }

        public Builder heap(String size) {
            this.heap = size;
            return this;
        }

        /** Appends stdout and stderr to this file; without it the child inherits this JVM's streams. */
        public Builder logTo(Path file) {
            this.logFile = file;
            return this;
        }

        public Process start() {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx" + heap);
            command.add("-XX:+UseSerialGC");
            command.add("-Xshare:auto");
            // a child keeps its temporary files where its parent does (under the tests: the module's target directory)
            command.add(TEMP_DIRECTORY_OPTION);
            command.addAll(jvmArgs);
            command.add("-cp");
            command.add(classPath);
            command.add(mainClass);
            command.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(inOwnSession(command));
            pb.environment().putAll(env);
            if (logFile != null) {
                File file = logFile.toFile();
                pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(file));
            } else {
                pb.inheritIO();
            }
            try {
                return pb.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
