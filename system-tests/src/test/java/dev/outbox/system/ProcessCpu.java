package dev.outbox.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A process's CPU time so far, from Linux's {@code /proc}: the whole process's (threads that ended included), and the
 * main thread's and the JIT compilers' among its threads alive now. The soak reads it the moment a restarted relay
 * streams again: the restart's CPU, which the machine's load does not change the way it changes the restart's time.
 */
record ProcessCpu(long totalMillis, long mainMillis, long jitMillis) {

    /** Ticks of {@code /proc/<pid>/stat}'s clock: 100 per second on Linux. */
    private static final long MILLIS_PER_TICK = 10;

    static ProcessCpu of(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        long total = millis(Files.readString(proc.resolve("stat")));
        Map<String, Long> byName = new HashMap<>();
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException ended) {
                    continue;
                }
                byName.merge(name(stat), millis(stat), Long::sum);
            }
        }
        long jit = byName.entrySet().stream()
                .filter(e -> e.getKey().matches("C[12] CompilerThre.*"))
                .mapToLong(Map.Entry::getValue)
                .sum();
        // Java's main thread keeps the launcher's name ("java"), as does the launcher's first thread, which only waits
        return new ProcessCpu(total, byName.getOrDefault("java", 0L), jit);
    }

    private static String name(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /** utime + stime: the 14th and 15th fields, the 12th and 13th after the name. */
    private static long millis(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * MILLIS_PER_TICK;
    }

    @Override
    public String toString() {
        return String.format(
                "%.1f CPU-s (main thread %.1f, JIT compilers %.1f)",
                totalMillis / 1000.0, mainMillis / 1000.0, jitMillis / 1000.0);
    }
}
