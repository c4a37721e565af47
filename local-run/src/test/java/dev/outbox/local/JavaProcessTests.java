package dev.outbox.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.assertj.core.api.Assertions.assertThat;

/** A child JVM runs in a session of its own, and is itself the process SIGKILL reaches. */
@EnabledOnOs(OS.LINUX)
class JavaProcessTests {

    @Test
    void aChildRunsInItsOwnSessionAsTheJvmItselfAndDiesOfSigkill() throws Exception {
        Process child = JavaProcess.builder(Sleeper.class.getName()).start();
        try {
            for (int i = 0; i < 300 && !command(child.pid()).contains(Sleeper.class.getName()); i++) {
                Thread.sleep(100);
            }
            assertThat(command(child.pid())).contains(Sleeper.class.getName());

            // the session's leader is the child (setsid ran it in its own process), not this JVM's session
            assertThat(session(child.pid()))
                    .isEqualTo(child.pid())
                    .isNotEqualTo(session(ProcessHandle.current().pid()));
            assertThat(Files.readSymbolicLink(Path.of("/proc", String.valueOf(child.pid()), "exe"))
                            .getFileName())
                    .hasToString("java");
            // and, in its own session, its own scheduling group where the kernel groups by session (autogroup)
            if (Files.readString(Path.of("/proc/sys/kernel/sched_autogroup_enabled"))
                    .trim()
                    .equals("1")) {
                assertThat(autogroup(child.pid()))
                        .isNotEqualTo(autogroup(ProcessHandle.current().pid()));
            }
        } finally {
            JavaProcess.kill(child);
        }
        assertThat(child.isAlive()).isFalse();
        assertThat(child.exitValue()).isEqualTo(128 + 9);
    }

    private static String command(long pid) throws Exception {
        return Files.readString(Path.of("/proc", String.valueOf(pid), "cmdline"))
                .replace('\0', ' ');
    }

    /** Field 6 of /proc/PID/stat, after the command name in parentheses. */
    private static long session(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[3]);
    }

    private static String autogroup(long pid) throws Exception {
        return Files.readString(Path.of("/proc", String.valueOf(pid), "autogroup"))
                .split(" ")[0];
    }

    /** Sleeps until it is killed. */
    public static final class Sleeper {
        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(Duration.ofMinutes(2).toMillis());
        }
    }
}
