package dev.outbox.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who stops a server: by default the JVM that started it, as it exits (the tests' servers); the local run's only when
 * the local run stops it, after its services (JVM shutdown hooks run all at once, so a hook of the server's own would
 * stop it while the services still shut down and use it).
 */
@EnabledOnOs(OS.LINUX)
class PostgresServerTests {

    /** The cluster's directory within the test's own, beside the child's log: JUnit deletes both. */
    private static final String DATA = "data";

    @Test
    void byDefaultAServerStopsWhenTheJvmThatStartedItExits(@TempDir Path dir) throws Exception {
        int port = startInAChildJvmThatExits(dir, true);
        assertThat(accepts(port)).as("PostgreSQL still listening").isFalse();
    }

    @Test
    void aServerItsOwnerStopsIsNotStoppedByTheJvmsExit(@TempDir Path dir) throws Exception {
        int port = startInAChildJvmThatExits(dir, false);
        try {
            assertThat(accepts(port)).as("PostgreSQL still listening").isTrue();
        } finally {
            // the postmaster the child left running, by the PID it wrote: SIGTERM, PostgreSQL's smart shutdown
            Path pid = dir.resolve(DATA).resolve("postmaster.pid");
            if (Files.exists(pid)) {
                long postmaster = Long.parseLong(Files.readAllLines(pid).get(0).trim());
                ProcessHandle.of(postmaster).ifPresent(p -> {
                    p.destroy();
                    p.onExit().orTimeout(60, TimeUnit.SECONDS).join();
                });
            }
        }
    }

    private static int startInAChildJvmThatExits(Path dir, boolean stopsWithTheJvm) throws Exception {
        int port = freePort();
        Process child = JavaProcess.builder(
                        StartsAServerAndExits.class.getName(),
                        dir.resolve(DATA).toString(),
                        String.valueOf(port),
                        String.valueOf(stopsWithTheJvm))
                .logTo(dir.resolve("child.log"))
                .start();
        assertThat(child.waitFor(3, TimeUnit.MINUTES)).as("the child exited").isTrue();
        assertThat(child.exitValue()).isZero();
        return port;
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Starts a server, then returns from main: the JVM exits and runs its shutdown hooks. */
    static final class StartsAServerAndExits {
        public static void main(String[] args) {
            PostgresServer.start(
                    Integer.parseInt(args[1]), Path.of(args[0]), false, Map.of(), Boolean.parseBoolean(args[2]));
        }
    }
}
