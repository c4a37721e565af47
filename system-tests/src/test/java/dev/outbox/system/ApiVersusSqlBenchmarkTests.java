package dev.outbox.system;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.outbox.local.LocalCredentials;
import dev.outbox.testing.TestPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /payments} against the SQL it sends, run raw: in one run on a durable PostgreSQL, the API as deployed
 * (its executable jar in its own JVM) under wrk, a load generator no one here wrote, with a fresh Idempotency-Key per
 * request; and pgbench running {@code bench/post-payment.pgbench}, the API's own statements (kept in step by
 * {@link PgbenchScriptTests}), with as many clients as wrk has connections. Both with the whole pipeline running (the
 * relay and the consumer streaming every event) and with the API alone (both SIGKILLed). Per phase: requests or
 * transactions per second, latency p50 / p99 / p99.9, and CPU per request of each process; then the API at 80% of
 * the maximum it reached, paced by wrk's per-connection delay, for its latency there.
 *
 * <pre>
 * ./mvnw -B -Pbenchmark -pl system-tests -am verify -Dtest=ApiVersusSqlBenchmarkTests \
 *   [-Dbench.clients=16] [-Dbench.seconds=20] [-Dbench.rounds=1] [-Dbench.warmup=180] \
 *   [-Dbench.pipeline=running,stopped] [-Dharness.apiEnv=PAYMENTS_DB_POOL_SIZE=8] ["-Dharness.jvmArgs=..."]
 * </pre>
 *
 * Writes {@code system-tests/target/benchmark/api-vs-sql.md}. Needs wrk and pgbench on the PATH (Debian: wrk,
 * postgresql-client).
 */
@Tag("benchmark")
class ApiVersusSqlBenchmarkTests {

    private static final int CLIENTS = Integer.getInteger("bench.clients", 16);
    private static final int SECONDS = Integer.getInteger("bench.seconds", 20);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 1);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 180);
    /** The pipeline's states to measure in, in this order: running, stopped (the relay and consumer killed). */
    private static final List<String> PHASES =
            List.of(System.getProperty("bench.pipeline", "running,stopped").split(","));

    private static final String BODY = "{\"amount\":\"3.00\",\"currency\":\"EUR\",\"description\":\"bench\"}";

    private final List<String> rows = new ArrayList<>();

    @Test
    void theApiAgainstItsOwnSqlWithAndWithoutThePipeline() throws Exception {
        Path wrk = onPath("wrk");
        Path pgbench = onPath("pgbench");
        Path work = Files.createDirectories(Path.of("target", "benchmark", "api-vs-sql"));
        Path script = work.resolve("post-payment.pgbench");
        try (InputStream in = getClass().getResourceAsStream("/bench/post-payment.pgbench")) {
            Files.write(script, in.readAllBytes());
        }
        try (PipelineHarness harness = new PipelineHarness("cdc")) {
            Map<String, Long> pids = new LinkedHashMap<>();
            pids.put("api", harness.pid(PipelineHarness.Component.API));
            pids.put("relay", harness.pid(PipelineHarness.Component.RELAY));
            pids.put("consumer", harness.pid(PipelineHarness.Component.CONSUMER));
            String url = harness.apiUrl() + "/payments";
            // the JIT's warm-up, not measured
            wrk(wrk, work, url, WARMUP, 0, "warm");
            for (String pipeline : PHASES) {
                if (pipeline.equals("stopped")) {
                    harness.kill(PipelineHarness.Component.RELAY);
                    harness.kill(PipelineHarness.Component.CONSUMER);
                    pids.remove("relay");
                    pids.remove("consumer");
                }
                for (int round = 1; round <= ROUNDS; round++) {
                    String phase = "pipeline " + pipeline + ", round " + round;
                    Measured api = measured(harness, pids, () -> wrk(wrk, work, url, SECONDS, 0, "max"));
                    Measured sql = measured(harness, pids, () -> pgbench(pgbench, harness.postgres(), work, script));
                    report(phase, "API, full speed (wrk)", api);
                    report(phase, "its SQL run raw, full speed (pgbench)", sql);
                    rows.add(String.format(
                            Locale.ROOT, "| %s | API / its SQL | %.2f | | | | |", phase, api.rate() / sql.rate()));
                    Measured paced = paced(harness, pids, wrk, work, url, api);
                    report(
                            phase,
                            String.format(
                                    Locale.ROOT,
                                    "API at %.0f%% of its maximum (wrk, paced)",
                                    100 * paced.rate() / api.rate()),
                            paced);
                }
            }
        }
        String table = String.join(
                        "\n",
                        List.of(
                                "# payments-api against its own SQL, " + LocalDate.now(),
                                "",
                                "PostgreSQL " + (TestPostgres.durableRequested() ? "durable (fsync on)" : "not durable")
                                        + "; " + CLIENTS + " wrk connections (2 threads) / " + CLIENTS
                                        + " pgbench clients (-M prepared, 2 threads); " + SECONDS + " s per measurement"
                                        + " after a " + WARMUP
                                        + " s warm-up of the API; CPU in ms per request (per transaction).",
                                "",
                                "| phase | load | per second | p50 / p99 / p99.9 (ms) | errors | CPU ms per request"
                                        + " (API, relay, consumer, PostgreSQL) | machine busy |",
                                "|---|---|---:|---|---:|---|---:|"))
                + "\n" + String.join("\n", rows) + "\n";
        Files.writeString(work.getParent().resolve("api-vs-sql.md"), table);
        System.out.println(table);
    }

    private Measured paced(
            PipelineHarness harness, Map<String, Long> pids, Path wrk, Path work, String url, Measured max)
            throws Exception {
        double target = 0.8 * max.rate();
        double period = 1000.0 * CLIENTS / target; // ms between two requests on one connection
        double delay = Math.max(0, period - max.p50());
        for (int i = 0; i < 3; i++) { // calibrate: a connection's cycle (its latency and the delay) to the period
            Measured probe = wrk(wrk, work, url, 8, delay, "calibrate");
            double cycle = 1000.0 * CLIENTS / probe.rate();
            delay = Math.max(0, delay + period - cycle);
        }
        double d = delay;
        return measured(harness, pids, () -> wrk(wrk, work, url, SECONDS, d, "paced"));
    }

    private void report(String phase, String load, Measured m) {
        rows.add(String.format(
                Locale.ROOT,
                "| %s | %s | %.0f | %.1f / %.1f / %.1f | %d | %s | %.0f%% |",
                phase,
                load,
                m.rate(),
                m.p50(),
                m.p99(),
                m.p999(),
                m.errors(),
                m.cpuMsPerRequest(),
                100 * m.machineBusy()));
        assertThat(m.errors())
                .as(load + ": non-2xx answers and failed transactions")
                .isZero();
        assertThat(m.requests()).as(load + ": requests").isPositive();
    }

    // ---------------------------------------------------------------- measuring

    record Measured(
            double rate,
            long requests,
            long errors,
            double p50,
            double p99,
            double p999,
            String cpuMsPerRequest,
            double machineBusy) {}

    @FunctionalInterface
    interface Load {
        Measured run() throws Exception;
    }

    /** Runs the load, with the CPU of each process and of the machine read before and after. */
    private static Measured measured(PipelineHarness harness, Map<String, Long> pids, Load load) throws Exception {
        long postmaster = harness.postgres().postmasterPid();
        Map<String, Double> before = new LinkedHashMap<>();
        pids.forEach((name, pid) -> before.put(name, ProcessStats.cpuSeconds(pid)));
        before.put("postgres", ProcessStats.treeCpuSeconds(postmaster));
        double[] machineBefore = ProcessStats.machineCpuSeconds();
        Measured m = load.run();
        double[] machineAfter = ProcessStats.machineCpuSeconds();
        List<String> cpu = new ArrayList<>();
        for (String name : List.of("api", "relay", "consumer", "postgres")) {
            if (!before.containsKey(name)) {
                cpu.add("-");
                continue;
            }
            double after = name.equals("postgres")
                    ? ProcessStats.treeCpuSeconds(postmaster)
                    : ProcessStats.cpuSeconds(pids.get(name));
            cpu.add(String.format(Locale.ROOT, "%.2f", 1000 * (after - before.get(name)) / m.requests()));
        }
        double busy = (machineAfter[0] - machineBefore[0]) / (machineAfter[1] - machineBefore[1]);
        return new Measured(
                m.rate(), m.requests(), m.errors(), m.p50(), m.p99(), m.p999(), String.join(", ", cpu), busy);
    }

    /**
     * wrk against {@code POST /payments}: a fresh Idempotency-Key per request (this run's prefix, wrk's thread and a
     * counter); with a delay, each connection waits that long after each answer (wrk has no fixed-rate mode).
     */
    private static Measured wrk(Path wrk, Path work, String url, int seconds, double delayMs, String name)
            throws Exception {
        Path script = work.resolve("post-payment.lua");
        Files.writeString(script, """
                local counter = 0
                local threads = {}
                function setup(thread)
                  table.insert(threads, thread)
                  thread:set("tid", #threads)
                end
                function init(args)
                  prefix = args[1]
                  pause = tonumber(args[2])
                end
                request = function()
                  counter = counter + 1
                  local headers = {}
                  headers["Authorization"] = "Bearer local-key-client-a"
                  headers["Content-Type"] = "application/json"
                  headers["Idempotency-Key"] = prefix .. "-" .. tid .. "-" .. counter
                  return wrk.format("POST", nil, headers, '%s')
                end
                %s
                function done(summary, latency, requests)
                  local e = summary.errors
                  io.write(string.format("RESULT %%d %%d %%d %%d %%d %%d\\n", summary.requests,
                    e.status + e.connect + e.read + e.write + e.timeout, latency:percentile(50),
                    latency:percentile(99), latency:percentile(99.9), summary.duration))
                end
                """.formatted(BODY, delayMs > 0 ? "function delay() return pause end" : ""));
        String out = run(
                new ProcessBuilder(
                        wrk.toString(),
                        "-t2",
                        "-c" + CLIENTS,
                        "-d" + seconds + "s",
                        "-s",
                        script.toString(),
                        url,
                        "--",
                        name + "-" + Long.toHexString(System.nanoTime()),
                        String.valueOf(Math.round(delayMs))),
                work.resolve("wrk-" + name + ".txt"));
        Matcher m = Pattern.compile("RESULT (\\d+) (\\d+) (\\d+) (\\d+) (\\d+) (\\d+)")
                .matcher(out);
        assertThat(m.find()).as(out).isTrue();
        long requests = Long.parseLong(m.group(1));
        double durationSeconds = Long.parseLong(m.group(6)) / 1e6;
        return new Measured(
                requests / durationSeconds,
                requests,
                Long.parseLong(m.group(2)),
                Long.parseLong(m.group(3)) / 1000.0,
                Long.parseLong(m.group(4)) / 1000.0,
                Long.parseLong(m.group(5)) / 1000.0,
                "",
                0);
    }

    /** pgbench running the API's statements, its per-transaction log read for the latency percentiles. */
    private static Measured pgbench(Path pgbench, TestPostgres postgres, Path work, Path script) throws Exception {
        Path logs = Files.createDirectories(work.resolve("pgbench-log-" + Long.toHexString(System.nanoTime())));
        List<String> command = new ArrayList<>(List.of(
                pgbench.toString(),
                "-h",
                postgres.host(),
                "-p",
                String.valueOf(postgres.port()),
                "-U",
                LocalCredentials.POSTGRES.user(),
                "-n",
                "-M",
                "prepared",
                "-c",
                String.valueOf(CLIENTS),
                "-j",
                "2",
                "-T",
                String.valueOf(SECONDS),
                "-l",
                "--log-prefix=" + logs.resolve("tx"),
                "-f",
                script.toString()));
        // what the API's request carries and what it computes, as the API would for the request wrk sends
        Map<String, String> constants = new LinkedHashMap<>();
        constants.put("timeout", "5000ms");
        constants.put("client", "client-a");
        constants.put("amount", "3.00");
        constants.put("currency", "EUR");
        constants.put("description", "bench");
        constants.put("hash", "0".repeat(64));
        constants.put("payment_status", "CREATED");
        constants.put("aggregate_type", "payment");
        constants.put("event_type", "PaymentCreated");
        constants.put("aggregate_version", "1");
        constants.put("schema_version", "1");
        constants.put("trace_parent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        constants.put("response_status", "201");
        constants.forEach((k, v) -> command.addAll(List.of("-D", k + "=" + v)));
        command.add("payments");
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("PGPASSWORD", LocalCredentials.POSTGRES.password());
        String out = run(builder, work.resolve("pgbench.txt"));
        Matcher tps = Pattern.compile("tps = ([\\d.]+) \\(without initial connection time\\)")
                .matcher(out);
        assertThat(tps.find()).as(out).isTrue();
        Matcher failed =
                Pattern.compile("number of failed transactions: (\\d+)").matcher(out);
        long failures = failed.find() ? Long.parseLong(failed.group(1)) : 0;
        List<Long> micros = new ArrayList<>();
        try (var files = Files.list(logs)) {
            for (Path f : files.toList()) {
                for (String line : Files.readAllLines(f)) {
                    micros.add(Long.parseLong(line.split(" ")[2]));
                }
            }
        }
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Measured(
                Double.parseDouble(tps.group(1)),
                sorted.length,
                failures,
                percentile(sorted, 50) / 1000.0,
                percentile(sorted, 99) / 1000.0,
                percentile(sorted, 99.9) / 1000.0,
                "",
                0);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    private static String run(ProcessBuilder builder, Path output) throws IOException, InterruptedException {
        Process p = builder.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Files.writeString(output, out);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private static Path onPath(String tool) {
        return Arrays.stream(System.getenv("PATH").split(":"))
                .map(d -> Path.of(d, tool))
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException(tool + " is not on the PATH (Debian: wrk, postgresql-client)"));
    }
}
