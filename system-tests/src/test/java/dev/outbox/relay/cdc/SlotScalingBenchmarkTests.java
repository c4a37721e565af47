package dev.outbox.relay.cdc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.Topics;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.PostgresServer;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayProcess;
import dev.outbox.system.ProcessStats;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TestPostgres;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Does a second replication slot drain a backlog faster? One relay on one slot with the migrations' full publication
 * against {@value #SLOTS_DEFAULT} relays, each on its own slot, offsets topic and publication, the publications
 * splitting the outbox by a row filter on a hash of the aggregate id (PostgreSQL 15+), so every aggregate's events go
 * through one relay and keep their order. All relays publish to one topic. Per round and setup, as in
 * {@link RelayVersusConnectBenchmarkTests}: the warm drain (relays running, warmed by half a backlog, then a backlog of
 * 80% PaymentCreated and 20% PaymentRefunded committed in one transaction; from the commit until the topic's end
 * offsets hold them all) and CPU-seconds per 100,000 events per process from /proc: the relays' JVMs, each walsender
 * (every walsender decodes the whole WAL and drops the rows its filter rejects), the rest of PostgreSQL and the broker.
 * Afterwards the topic is read back: every event there, none twice, each aggregate's versions in order; each relay
 * published exactly its half; the safety net (grace 60 s) published nothing.
 *
 * <p>{@code ./mvnw -B -Pbenchmark -pl system-tests -am verify -Dtest=SlotScalingBenchmarkTests}
 * [{@code -Dbench.backlog=100000 -Dbench.rounds=2 -Dbench.slots=2}]; results in
 * {@code system-tests/target/benchmark/slot-scaling.md}.
 */
@Tag("benchmark")
class SlotScalingBenchmarkTests {

    static final int SLOTS_DEFAULT = 2;
    static final int BACKLOG = Integer.getInteger("bench.backlog", 100_000);
    static final int ROUNDS = Integer.getInteger("bench.rounds", 2);
    static final int SLOTS = Integer.getInteger("bench.slots", SLOTS_DEFAULT);
    /** The relay's safety-net grace (relay.safety-net.grace, not overridden here): every drain must end well inside. */
    static final Duration GRACE = Duration.ofSeconds(60);

    private static final Pattern SAFETY_NET = Pattern.compile("safety net published (\\d+) events");

    private Path work;
    private TestPostgres pg;
    private ChildKafka kafka;
    private long brokerPid;

    /**
     * One setup's figures in one round.
     *
     * @param cpuPer100k     CPU-seconds per 100,000 events from the commit to the drain's end: {@code jvm N},
     *                       {@code walsender N}, {@code pg:PID} (every other PostgreSQL process), {@code broker}
     * @param walsenderPreload CPU-seconds of each walsender while the backlog was written (decoding into the reorder
     *                       buffer before the commit), per 100,000 events
     * @param machineBusy    share of the whole machine's CPU busy during the drain, every process on it included
     * @param split          rows of the outbox (warm-up and backlog) per row-filter part
     * @param published      events each relay had acknowledged by Kafka at the end (outbox_relay_published)
     */
    record Run(
            int relays,
            int round,
            double eventsPerSecond,
            Map<String, Double> cpuPer100k,
            List<Double> walsenderPreload,
            double machineBusy,
            List<Long> split,
            List<Long> published,
            long skipped,
            long safetyNet,
            long written,
            long onTopic,
            long distinct,
            long orderViolations,
            double oldestAgeSeconds) {

        double sum(String prefix) {
            return cpuPer100k.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(prefix))
                    .mapToDouble(Map.Entry::getValue)
                    .sum();
        }

        double cpuTotal() {
            return cpuPer100k.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        /** Cores busy with this pipeline during the drain. */
        double cores() {
            return cpuTotal() / 100_000 * eventsPerSecond;
        }

        double one(String key) {
            return cpuPer100k.getOrDefault(key, Double.NaN);
        }
    }

    /**
     * pg_recvlogical decoding one backlog's WAL through {@code parts} slots at once, each with its part's publication.
     *
     * @param walsenderPer100k CPU-seconds of each walsender per 100,000 events of the backlog (sampled from /proc
     *                         every 10 ms while it ran, so up to 10 ms short)
     */
    record Raw(int parts, int round, double eventsPerSecond, List<Double> walsenderPer100k) {}

    @Test
    void twoSlotsAgainstOne() throws Exception {
        work = Files.createDirectories(Path.of("target", "slots-" + Long.toHexString(System.nanoTime()))
                .toAbsolutePath());
        // both servers' data goes when they stop; the logs stay in the work directory
        try (TestPostgres durable = TestPostgres.start(true);
                ChildKafka broker = ChildKafka.throwAway(Ports.free(), work.resolve("kafka"))
                        .start()) {
            pg = durable;
            kafka = broker;
            brokerPid = broker.pid();
            List<Run> runs = new ArrayList<>();
            List<Raw> raws = new ArrayList<>();
            Path recvlogical = BenchmarkSupport.pgRecvlogical().orElse(null);
            for (int round = 1; round <= ROUNDS; round++) {
                runs.add(measure(1, round));
                runs.add(measure(SLOTS, round));
                if (recvlogical != null) {
                    raws.add(rawDecoding(recvlogical, 1, round));
                    raws.add(rawDecoding(recvlogical, SLOTS, round));
                }
            }
            write(runs, raws);
            for (Run r : runs) {
                assertThat(r.onTopic()).as("events on the topic").isGreaterThanOrEqualTo(r.written());
                assertThat(r.distinct()).as("distinct event ids on the topic").isEqualTo(r.written());
                assertThat(r.orderViolations())
                        .as("aggregates whose versions came out of order")
                        .isZero();
                assertThat(r.published().stream().mapToLong(Long::longValue).sum())
                        .as("acknowledged by the relays")
                        .isGreaterThanOrEqualTo(r.written());
                if (r.relays() > 1) {
                    assertThat(r.published())
                            .as("each relay published its publication's part, and only that")
                            .isEqualTo(r.split());
                }
            }
        }
    }

    // ---------------------------------------------------------------- one round of one setup

    private Run measure(int relays, int round) throws Exception {
        String suffix = relays + "r" + round + Long.toHexString(System.nanoTime() & 0xffffff);
        String database = "scale_" + suffix;
        SharedInfra.createDatabases(pg, database);
        OutboxRows.migrate(
                pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
        String topicPattern = "s-" + suffix + "." + Topics.AGGREGATE_TYPE_PLACEHOLDER + ".events";
        String topic = Topics.forAggregate(topicPattern, EventTypes.PAYMENT);
        try (Admin admin = Admin.create(kafka.adminClientProperties())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        List<String> publications = publications(database, relays);
        List<String> slots = IntStream.range(0, relays)
                .mapToObj(i -> "slot_" + suffix + "_" + i)
                .toList();
        List<RelayProcess> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < relays; i++) {
            Map<String, String> env = new HashMap<>();
            env.put("RELAY_DB_HOST", pg.host());
            env.put("RELAY_DB_PORT", String.valueOf(pg.port()));
            env.put("RELAY_DB_NAME", database);
            env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
            env.put("RELAY_CDC_SLOT", slots.get(i));
            env.put("RELAY_CDC_PUBLICATION", publications.get(i));
            env.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + suffix + "-" + i);
            env.put("RELAY_TOPIC_PATTERN", topicPattern);
            env.put("RELAY_HTTP_PORT", String.valueOf(Ports.free()));
            String name = "scale-" + suffix + "-" + i;
            processes.add(new RelayProcess(env, name));
            logs.add(Path.of("target", "relay-" + name + ".log"));
        }
        try {
            for (int i = 0; i < relays; i++) {
                processes.get(i).start();
                BenchmarkSupport.awaitSlotActive(pg, database, slots.get(i));
            }
            List<Long> pids = processes.stream().map(RelayProcess::pid).toList();
            long expected = 0;

            // warm-up: half a backlog, not measured
            expected += BenchmarkSupport.preload(pg, database, BACKLOG / 2);
            BenchmarkSupport.awaitOnTopic(kafka, topic, expected);

            // the backlog, committed while the relays run: from the commit to the last record on the topic
            Map<String, Double> beforeWrite = cpu(database, pids, slots);
            long built = System.nanoTime(); // the events' occurred_at is taken after this
            expected += BenchmarkSupport.preload(pg, database, BACKLOG);
            Map<String, Double> before = cpu(database, pids, slots);
            double[] machine0 = ProcessStats.machineCpuSeconds();
            long t0 = System.nanoTime();
            BenchmarkSupport.awaitOnTopic(kafka, topic, expected);
            long t1 = System.nanoTime();
            double[] machine1 = ProcessStats.machineCpuSeconds();
            Map<String, Double> after = cpu(database, pids, slots);
            Map<String, Double> per100k = new LinkedHashMap<>();
            for (String process : after.keySet()) {
                per100k.put(process, (after.get(process) - before.getOrDefault(process, 0.0)) * 100_000 / BACKLOG);
            }
            List<Double> preloadWalsender = IntStream.range(0, relays)
                    .mapToObj(i ->
                            (before.get("walsender " + (i + 1)) - beforeWrite.getOrDefault("walsender " + (i + 1), 0.0))
                                    * 100_000
                                    / BACKLOG)
                    .toList();
            double machineBusy = (machine1[0] - machine0[0]) / (machine1[1] - machine0[1]);

            List<Long> split = split(database, relays);
            long written = expected;
            await().atMost(Duration.ofSeconds(30)) // the counters follow Kafka's acknowledgements by a moment
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        long acknowledged = 0;
                        for (RelayProcess p : processes) {
                            acknowledged += Math.round(p.meters().getOrDefault("outbox_relay_published_total", 0.0));
                        }
                        return acknowledged >= written;
                    });
            List<Long> published = new ArrayList<>();
            long skipped = 0;
            for (RelayProcess p : processes) {
                Map<String, Double> metrics = p.meters();
                published.add(Math.round(metrics.getOrDefault("outbox_relay_published_total", 0.0)));
                skipped += Math.round(metrics.getOrDefault("outbox_cdc_skipped_total", 0.0));
            }
            long[] topicFigures = readBack(topic);
            Run run = new Run(
                    relays,
                    round,
                    BACKLOG / ((t1 - t0) / 1e9),
                    per100k,
                    preloadWalsender,
                    machineBusy,
                    split,
                    published,
                    skipped,
                    safetyNet(logs),
                    expected,
                    topicFigures[0],
                    topicFigures[1],
                    topicFigures[2],
                    (t1 - built) / 1e9);
            System.out.printf(
                    "SLOTS %d relay(s) round %d: %.0f events/s, CPU-s per 100k %s (total %.2f), walsenders while"
                            + " writing %s, split %s, published %s, skipped %d, safety net %d, topic %d (distinct %d,"
                            + " written %d, order violations %d), oldest event's age at the end %.1f s%n",
                    relays,
                    round,
                    run.eventsPerSecond(),
                    per100k,
                    run.cpuTotal(),
                    preloadWalsender,
                    split,
                    published,
                    skipped,
                    run.safetyNet(),
                    run.onTopic(),
                    run.distinct(),
                    run.written(),
                    run.orderViolations(),
                    run.oldestAgeSeconds());
            return run;
        } finally {
            for (RelayProcess p : processes) {
                try {
                    BenchmarkSupport.terminate(p.pid());
                } catch (NullPointerException notStarted) {
                    // never started: nothing to stop
                }
            }
            for (String slot : slots) {
                BenchmarkSupport.dropSlot(pg, database, slot);
            }
        }
    }

    /** The migrations' full publication for one part, else one publication per part, split by {@link #part}. */
    private List<String> publications(String database, int parts) throws SQLException {
        if (parts == 1) {
            return List.of("outbox_publication");
        }
        List<String> publications = new ArrayList<>();
        for (int part = 0; part < parts; part++) {
            String name = "outbox_part_" + part + "_of_" + parts;
            execute(
                    database,
                    "CREATE PUBLICATION " + name + " FOR TABLE outbox_messages WHERE (" + part(parts) + " = " + part
                            + ") WITH (publish = 'insert')");
            publications.add(name);
        }
        return publications;
    }

    // ---------------------------------------------------------------- the raw decoding

    /** pg_recvlogical on {@code parts} slots at once, from before the backlog was written to its commit's LSN. */
    private Raw rawDecoding(Path binary, int parts, int round) throws Exception {
        String suffix = "raw" + parts + "r" + round + Long.toHexString(System.nanoTime() & 0xffffff);
        String database = "scale_" + suffix;
        SharedInfra.createDatabases(pg, database);
        OutboxRows.migrate(
                pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
        List<String> publications = publications(database, parts);
        List<String> slots = IntStream.range(0, parts)
                .mapToObj(i -> "slot_" + suffix + "_" + i)
                .toList();
        for (String slot : slots) {
            BenchmarkSupport.sql(pg, database, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        BenchmarkSupport.preload(pg, database, BACKLOG);
        String end = BenchmarkSupport.sql(pg, database, "SELECT pg_current_wal_lsn()::text");
        Path log = work.resolve("pg_recvlogical.log");
        List<Process> processes = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < parts; i++) {
            processes.add(
                    BenchmarkSupport.recvlogical(binary, pg, database, slots.get(i), publications.get(i), end, log)
                            .start());
        }
        long[] walsenders = new long[parts];
        double[] cpu = new double[parts];
        while (processes.stream().anyMatch(Process::isAlive)) {
            for (int i = 0; i < parts; i++) {
                if (walsenders[i] == 0) {
                    String pid = BenchmarkSupport.sql(
                            pg,
                            database,
                            "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = '" + slots.get(i)
                                    + "'");
                    walsenders[i] = pid == null ? 0 : Long.parseLong(pid);
                }
                if (walsenders[i] != 0) {
                    cpu[i] = Math.max(cpu[i], ProcessStats.cpuSeconds(walsenders[i]));
                }
            }
            assertThat(System.nanoTime() - t0).as("pg_recvlogical").isLessThan(TimeUnit.MINUTES.toNanos(10));
            Thread.sleep(10);
        }
        double rate = BACKLOG / ((System.nanoTime() - t0) / 1e9);
        for (Process p : processes) {
            assertThat(p.exitValue()).as("pg_recvlogical, see " + log).isZero();
        }
        for (String slot : slots) {
            BenchmarkSupport.dropSlot(pg, database, slot);
        }
        Raw raw = new Raw(
                parts,
                round,
                rate,
                IntStream.range(0, parts)
                        .mapToObj(i -> cpu[i] * 100_000 / BACKLOG)
                        .toList());
        System.out.printf(
                "RAW %d slot(s) round %d: %.0f events/s, walsender CPU-s per 100k %s%n",
                parts, round, rate, raw.walsenderPer100k());
        return raw;
    }

    /** The row filter: which of {@code parts} an aggregate belongs to (immutable, built-in, so a publication takes it). */
    static String part(int parts) {
        return "(uuid_hash(aggregate_id) & 2147483647) % " + parts;
    }

    /** Rows of the outbox per part of the row filter. */
    private List<Long> split(String database, int parts) {
        List<Long> counts = new ArrayList<>();
        for (int part = 0; part < parts; part++) {
            counts.add(Long.parseLong(BenchmarkSupport.sql(
                    pg, database, "SELECT count(*)::text FROM outbox_messages WHERE " + part(parts) + " = " + part)));
        }
        return counts;
    }

    private void execute(String database, String statement) throws SQLException {
        try (Connection c = pg.connect(database);
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    // ---------------------------------------------------------------- what came out

    /**
     * Reads the whole topic back.
     *
     * @return records, distinct event ids, and records whose aggregate version is not above the one before it on the
     *     same key (the partition's order is the consumer's order)
     */
    private long[] readBack(String topic) {
        Map<String, Object> settings = new HashMap<>(kafka.adminClientProperties());
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        long records = 0;
        long violations = 0;
        Set<java.util.UUID> ids = new HashSet<>();
        Map<String, Long> lastVersion = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(settings)) {
            List<TopicPartition> partitions =
                    List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                assertThat(System.nanoTime()).as("reading the topic back").isLessThan(deadline);
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    records++;
                    EventEnvelope envelope = EventRecord.of(record).envelope();
                    ids.add(envelope.id());
                    Long previous = lastVersion.put(record.key(), envelope.aggregateVersion());
                    if (previous != null && previous >= envelope.aggregateVersion()) {
                        violations++;
                    }
                }
            }
        }
        return new long[] {records, ids.size(), violations};
    }

    /** Events the safety net published, from the relays' logs (it says so on each sweep that found any). */
    private static long safetyNet(List<Path> logs) throws IOException {
        long swept = 0;
        for (Path log : logs) {
            if (Files.exists(log)) {
                Matcher m = SAFETY_NET.matcher(Files.readString(log));
                while (m.find()) {
                    swept += Long.parseLong(m.group(1));
                }
            }
        }
        return swept;
    }

    // ---------------------------------------------------------------- processes

    /**
     * CPU-seconds so far of each relay's JVM, each slot's walsender, every other live PostgreSQL process (keyed per
     * process: one that ends within a window is left out, one that starts counts whole) and the broker's JVM.
     */
    private Map<String, Double> cpu(String database, List<Long> relayPids, List<String> slots) {
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (int i = 0; i < relayPids.size(); i++) {
            cpu.put("jvm " + (i + 1), ProcessStats.cpuSeconds(relayPids.get(i)));
        }
        Set<Long> walsenders = new HashSet<>();
        for (int i = 0; i < slots.size(); i++) {
            long walsender = Long.parseLong(BenchmarkSupport.sql(
                    pg,
                    database,
                    "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = '" + slots.get(i) + "'"));
            walsenders.add(walsender);
            cpu.put("walsender " + (i + 1), ProcessStats.cpuSeconds(walsender));
        }
        long postmaster = pg.postmasterPid();
        for (ProcessHandle child :
                ProcessHandle.of(postmaster).orElseThrow().descendants().toList()) {
            if (!walsenders.contains(child.pid())) {
                cpu.put("pg:" + child.pid(), ProcessStats.cpuSeconds(child.pid()));
            }
        }
        cpu.put("pg:" + postmaster, ProcessStats.cpuSeconds(postmaster));
        cpu.put("broker", ProcessStats.cpuSeconds(brokerPid));
        return cpu;
    }

    // ---------------------------------------------------------------- report

    private void write(List<Run> runs, List<Raw> raws) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("| | ");
        runs.forEach(r -> md.append(r.relays() == 1 ? "1 relay" : r.relays() + " relays")
                .append(", round ")
                .append(r.round())
                .append(" | "));
        md.append(SLOTS).append(" / 1 (means) |\n|---|");
        runs.forEach(r -> md.append("---:|"));
        md.append("---:|\n");
        row(md, runs, "warm drain (events/s)", Run::eventsPerSecond, "%.0f");
        row(md, runs, "CPU-s per 100k, all processes", Run::cpuTotal, "%.2f");
        row(md, runs, "CPU-s per 100k, relay JVM(s)", r -> r.sum("jvm "), "%.2f");
        for (int i = 1; i <= SLOTS; i++) {
            int n = i;
            row(md, runs, "... relay JVM " + n, r -> r.one("jvm " + n), "%.2f");
        }
        row(md, runs, "CPU-s per 100k, walsender(s)", r -> r.sum("walsender "), "%.2f");
        for (int i = 1; i <= SLOTS; i++) {
            int n = i;
            row(md, runs, "... walsender " + n, r -> r.one("walsender " + n), "%.2f");
        }
        row(
                md,
                runs,
                "walsender(s) CPU-s per 100k while the backlog was written (before the commit, not in the totals)",
                r -> r.walsenderPreload().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum(),
                "%.2f");
        row(md, runs, "CPU-s per 100k, rest of PostgreSQL", r -> r.sum("pg:"), "%.2f");
        row(md, runs, "CPU-s per 100k, broker", r -> r.one("broker"), "%.2f");
        row(md, runs, "cores busy with the pipeline during the drain", Run::cores, "%.2f");
        row(md, runs, "whole machine CPU busy during the drain (%)", r -> 100 * r.machineBusy(), "%.0f");
        md.append("\n| correctness | ");
        runs.forEach(r -> md.append(r.relays()).append("r").append(r.round()).append(" | "));
        md.append("\n|---|");
        runs.forEach(r -> md.append("---|"));
        md.append('\n');
        text(md, runs, "events written (warm-up + backlog)", r -> String.valueOf(r.written()));
        text(md, runs, "records on the topic / distinct event ids", r -> r.onTopic() + " / " + r.distinct());
        text(md, runs, "duplicates on the topic", r -> String.valueOf(r.onTopic() - r.distinct()));
        text(md, runs, "aggregate versions out of order", r -> String.valueOf(r.orderViolations()));
        text(md, runs, "rows per row-filter part", r -> r.relays() == 1 ? "(one publication)" : join(r.split()));
        text(md, runs, "acknowledged per relay (outbox_relay_published)", r -> join(r.published()));
        text(md, runs, "outbox_cdc_skipped, all relays", r -> String.valueOf(r.skipped()));
        text(md, runs, "published by the safety net", r -> String.valueOf(r.safetyNet()));
        text(
                md,
                runs,
                "oldest backlog event's age at the drain's end (s; grace " + GRACE.toSeconds() + ")",
                r -> String.format("%.1f", r.oldestAgeSeconds()));
        md.append('\n');
        if (raws.isEmpty()) {
            md.append("- raw decoding not measured: pg_recvlogical is not on the PATH (Debian: postgresql-client)\n");
        }
        for (Raw raw : raws) {
            md.append(String.format(
                    "- raw decoding, round %d: pg_recvlogical (pgoutput) on %d slot(s) at once, %s: %.0f events/s of"
                            + " the backlog; walsender CPU-s per 100k events: %s%n",
                    raw.round(),
                    raw.parts(),
                    raw.parts() == 1 ? "the full publication" : "one part's publication each",
                    raw.eventsPerSecond(),
                    raw.walsenderPer100k().stream()
                            .map(c -> String.format("%.2f", c))
                            .reduce((a, b) -> a + " + " + b)
                            .orElse("")));
        }
        md.append("- PostgreSQL ")
                .append(PostgresServer.MAJOR_VERSION)
                .append(" durable (fsync, full_page_writes, synchronous_commit on); broker in its own JVM; relays"
                        + " -Xmx384m -XX:+UseSerialGC; backlog ")
                .append(BACKLOG)
                .append(" events (80% PaymentCreated, 20% PaymentRefunded) in one transaction, after a warm-up of ")
                .append(BACKLOG / 2)
                .append("; ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores\n");
        md.append("- ")
                .append(SLOTS)
                .append(" relays: each its own slot, offsets topic and publication `FOR TABLE outbox_messages WHERE (")
                .append(part(SLOTS))
                .append(" = k) WITH (publish = 'insert')`, one topic of 3 partitions for all\n");
        md.append("- CPU from the commit to the drain's end; every walsender reads and decodes the whole WAL and its"
                + " filter drops the other parts' rows\n");
        Path dir = Files.createDirectories(Path.of("target", "benchmark"));
        Files.writeString(dir.resolve("slot-scaling.md"), md.toString());
        System.out.println(md);
    }

    private static String join(List<?> values) {
        return values.stream()
                .map(String::valueOf)
                .reduce((a, b) -> a + " + " + b)
                .orElse("");
    }

    private static void text(StringBuilder md, List<Run> runs, String name, Function<Run, String> f) {
        md.append("| ").append(name).append(" | ");
        runs.forEach(r -> md.append(f.apply(r)).append(" | "));
        md.append('\n');
    }

    private static void row(StringBuilder md, List<Run> runs, String name, Function<Run, Double> f, String format) {
        md.append("| ").append(name).append(" | ");
        for (Run r : runs) {
            double v = f.apply(r);
            md.append(Double.isNaN(v) ? "" : String.format(format, v)).append(" | ");
        }
        double many = runs.stream()
                .filter(r -> r.relays() > 1)
                .mapToDouble(f::apply)
                .average()
                .orElse(Double.NaN);
        double one = runs.stream()
                .filter(r -> r.relays() == 1)
                .mapToDouble(f::apply)
                .average()
                .orElse(Double.NaN);
        boolean perInstance = name.startsWith("..."); // instance 1 of two against the only one: no ratio
        md.append(perInstance || Double.isNaN(many / one) ? "" : String.format("%.2f", many / one))
                .append(" |\n");
    }
}
