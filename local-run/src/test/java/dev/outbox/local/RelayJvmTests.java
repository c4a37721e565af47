package dev.outbox.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay's JVM options leave Spring's methods to C1, and only Spring's. */
class RelayJvmTests {

    private static final String SPRING_METHOD = "org.springframework.util.StringUtils::replace";
    private static final String OWN_METHOD = HotLoop.class.getName() + "::replace";

    @Test
    void withTheRelaysOptionsC2CompilesAHotMethodOfItsOwnButNoneOfSprings() throws Exception {
        List<String> compiled = compilations(RelayJvm.OPTIONS);

        assertThat(c2Compiled(compiled, OWN_METHOD))
                .as("C2 compiles the loop's own method")
                .isNotEmpty();
        assertThat(c2Compiled(compiled, SPRING_METHOD))
                .as("C2 compiles none of Spring's")
                .isEmpty();
        // C2 skips it ("cannot parse method (retry at different tier)") and C1 compiles it without profiling
        assertThat(compiled)
                .as("C1 compiles Spring's at level 1")
                .anyMatch(line -> line.contains(SPRING_METHOD) && line.matches(level(1)));
    }

    @Test
    void withoutTheSpringOptionC2CompilesSpringsMethodToo() throws Exception {
        List<String> options = new ArrayList<>(RelayJvm.OPTIONS);
        options.remove(RelayJvm.SPRING_IN_C1_ONLY);

        assertThat(c2Compiled(compilations(options), SPRING_METHOD)).isNotEmpty();
    }

    /**
     * The compile ids of {@code method}'s compilations at level 4 (C2) that C2 did not skip, from -XX:+PrintCompilation's
     * lines ({@code timestamp id flags level method ...}; a skipped one is printed again with "COMPILE SKIPPED").
     */
    private static Set<String> c2Compiled(List<String> lines, String method) {
        Set<String> ids = new HashSet<>();
        lines.stream()
                .filter(line -> line.contains(method) && line.matches(level(4)))
                .forEach(line -> ids.add(line.trim().split("\\s+")[1]));
        lines.stream()
                .filter(line -> line.contains(method) && line.contains("COMPILE SKIPPED"))
                .forEach(line -> ids.remove(line.trim().split("\\s+")[1]));
        return ids;
    }

    /** A -XX:+PrintCompilation line at {@code level}, after the flags ('%' marks an on-stack replacement). */
    private static String level(int level) {
        return "^\\s*\\d+\\s+\\d+\\s+[%sbn! ]*" + level + "\\s+.*";
    }

    /** -XX:+PrintCompilation's lines from a JVM with {@code options} running {@link HotLoop}. */
    private static List<String> compilations(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of(
                "-XX:+PrintCompilation", "-cp", System.getProperty("java.class.path"), HotLoop.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines().toList();
    }

    /** Calls a method of Spring's and one of its own, alike, often enough for C2 at the relay's thresholds. */
    static final class HotLoop {

        public static void main(String[] args) {
            long length = 0;
            for (int i = 0; i < 400_000; i++) {
                String text = "outbox-" + (i & 1023);
                length += StringUtils.replace(text, "-", "_").length();
                length += replace(text, "-", "_").length();
            }
            System.out.println(length);
        }

        /** As Spring's {@code StringUtils.replace}: a loop over the occurrences. */
        static String replace(String text, String old, String replacement) {
            int at = text.indexOf(old);
            if (at < 0) {
                return text;
            }
            StringBuilder out = new StringBuilder(text.length());
            int from = 0;
            while (at >= 0) {
                out.append(text, from, at).append(replacement);
                from = at + old.length();
                at = text.indexOf(old, from);
            }
            return out.append(text, from, text.length()).toString();
        }
    }
}
