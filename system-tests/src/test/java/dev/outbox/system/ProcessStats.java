package dev.outbox.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What Linux says of a process the benchmark started: its CPU so far and its peak resident memory, from /proc. */
public final class ProcessStats {

    /** The kinds of PostgreSQL server process, as their titles begin after {@code postgres: }. */
    private static final List<String> POSTGRES_PROCESS_KINDS = List.of(
            "autovacuum worker",
            "autovacuum launcher",
            "checkpointer",
            "background writer",
            "walwriter",
            "walsender",
            "io worker",
            "logical replication",
            "parallel worker");

    private ProcessStats() {}

    /** user + system CPU of one live process, in seconds (0 when it is gone). */
    public static double cpuSeconds(long pid) {
        try {
            return cpuSecondsOf(Files.readString(Path.of("/proc", String.valueOf(pid), "stat")));
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * CPU of a process tree so far, in seconds: the process itself, its children that ended and were waited for
     * (Linux's cutime and cstime: a PostgreSQL backend whose client disconnected), and every live descendant.
     */
    public static double treeCpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double ended = (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) / 100.0;
            double live = ProcessHandle.of(pid).stream()
                    .flatMap(ProcessHandle::descendants)
                    .mapToDouble(h -> cpuSeconds(h.pid()))
                    .sum();
            return cpuSecondsOf(stat) + ended + live;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * What a PostgreSQL server process is, from the title it sets ({@code postgres: checkpointer}, {@code postgres:
     * autovacuum worker db}, {@code postgres: user db 127.0.0.1(5432) idle}): its kind, a client backend by its user
     * ({@code backend of user}); {@code postmaster} for a child that has not set its title yet (a fork still carries the
     * postmaster's command line); {@code gone} when it ended.
     */
    public static String postgresRole(long pid) {
        String title;
        try {
            title = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")))
                    .replace('\0', ' ')
                    .trim();
        } catch (IOException e) {
            return "gone";
        }
        if (!title.startsWith("postgres: ")) {
            return "postmaster";
        }
        String role = title.substring("postgres: ".length());
        for (String kind : POSTGRES_PROCESS_KINDS) {
            if (role.startsWith(kind)) {
                return kind;
            }
        }
        return "backend of " + role.split(" ")[0];
    }

    /** VmHWM: the most resident memory the process ever had, in KiB (-1 when Linux does not say). */
    public static long peakRssKib(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
                .filter(l -> l.startsWith("VmHWM:"))
                .map(l -> l.replaceAll("\\D", ""))
                .mapToLong(Long::parseLong)
                .findFirst()
                .orElse(-1);
    }

    /**
     * user + system CPU of each live thread of one process, in seconds, summed per thread name with its digits folded
     * ({@code pool-4-thread-2} counts as {@code pool-N-thread-N}); Linux keeps the first 15 characters of a name.
     */
    public static Map<String, Double> threadCpuSeconds(long pid) {
        Map<String, Double> threads = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            tasks.forEach(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("[0-9]+", "N");
                    threads.merge(name, cpuSecondsOf(stat), Double::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            });
        } catch (IOException gone) {
            // the process ended
        }
        return threads;
    }

    /**
     * The whole machine's CPU so far, every process on it included, from the first line of /proc/stat.
     *
     * @return busy seconds (all but idle and iowait) and all seconds, summed over the cores
     */
    public static double[] machineCpuSeconds() throws IOException {
        String[] fields =
                Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long all = 0;
        for (int i = 1; i < Math.min(fields.length, 9); i++) { // user nice system idle iowait irq softirq steal
            all += Long.parseLong(fields[i]);
        }
        long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
        return new double[] {(all - idle) / 100.0, all / 100.0};
    }

    /** utime + stime of a /proc stat line (after the parenthesised name), in seconds at 100 ticks per second. */
    private static double cpuSecondsOf(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }
}
