package dev.outbox.relay.cdc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.contract.Topics;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.PostgresServer;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayProcess;
import dev.outbox.relay.publish.KafkaPublisher;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay against what a user would run instead: Debezium's PostgreSQL connector and Outbox Event Router on a Kafka
 * Connect worker (standalone, its own JVM, {@code connect-runtime} of the broker's version from Maven Central). Both
 * get the same connector and router settings (generated here from {@link DebeziumSettings}, the relay's own source),
 * the same producer settings ({@link KafkaPublisher#producerSettings}), the same JVM flags, the same backlog (80%
 * PaymentCreated, 20% PaymentRefunded, written through payments-api's OutboxWriter), one durable PostgreSQL (fsync,
 * full_page_writes and synchronous_commit on) and one broker in its own JVM. For each, per round: the warm drain (a
 * running contender, after a warm-up backlog of half the size), CPU-seconds per 100,000 events per process (the
 * contender's JVM, its walsender, the rest of PostgreSQL, the broker) from /proc, peak RSS, and the cold drain (start
 * to all on the topic). Beside them: pg_recvlogical decoding the same WAL (when installed), and a bare producer.
 *
 * <p>{@code ./mvnw -B -Pbenchmark -pl system-tests -am verify -Dtest=RelayVersusConnectBenchmarkTests}
 * [{@code -Dbench.backlog=100000 -Dbench.rounds=2}]; results in {@code system-tests/target/benchmark/relay-vs-connect.md}.
 */
@Tag("benchmark")
class RelayVersusConnectBenchmarkTests {

    static final int BACKLOG = Integer.getInteger("bench.backlog", 100_000);
    static final int ROUNDS = Integer.getInteger("bench.rounds", 2);
    /** Events drained before the warm drain is measured ({@code -Dbench.warmup}); half a backlog by default. */
    static final int WARMUP = Integer.getInteger("bench.warmup", BACKLOG / 2);
    /** Both contenders' JVMs run with RelayProcess's flags: -Xmx384m -XX:+UseSerialGC -Xshare:auto. */
    static final List<String> JVM_FLAGS = ConnectWorker.JVM_FLAGS;
    /** Extra options for both contenders' JVMs, e.g. a flight recording: {@code -Dbench.jvmOptions=...}. */
    static final String EXTRA_JVM_OPTIONS = System.getProperty("bench.jvmOptions", "");
    /** Which contenders run ({@code -Dbench.contenders=relay} for a quick look at the relay alone). */
    static final List<String> CONTENDERS =
            List.of(System.getProperty("bench.contenders", "relay,connect").split(","));
    /** Whether the raw limits (pg_recvlogical, the bare producer) are measured too. */
    static final boolean LIMITS = Boolean.parseBoolean(System.getProperty("bench.limits", "true"));
    /** The codecs the bare producer sends with, the relay's (lz4) first. */
    static final List<String> CODECS = List.of("lz4", "none", "zstd");
    /** Measured passes of the bare producer per codec. */
    static final int BARE_PASSES = 3;
    /** Extra environment for the relay, {@code NAME=value} pairs separated by {@code |}, for trying settings. */
    static final String RELAY_ENV = System.getProperty("bench.relayEnv", "");
    /**
     * Connector settings for Connect only over the relay's, {@code key=value} pairs separated by {@code |}: Connect at
     * its own defaults rather than the relay's, e.g. {@code -Dbench.connectSettings=poll.interval.ms=500}.
     */
    static final String CONNECT_SETTINGS = System.getProperty("bench.connectSettings", "");
    /**
     * PostgreSQL settings over the durable server's, {@code -Dbench.postgresSettings=k=v|k=v}: e.g. statement logging
     * ({@code log_min_duration_statement=0|logging_collector=on|log_directory=/tmp/pglog}) to see what each contender
     * runs besides its stream.
     */
    static final String POSTGRES_SETTINGS = System.getProperty("bench.postgresSettings", "");
    /**
     * SQL run on every contender's database after the migrations, for trying a schema change side by side, e.g. the
     * outbox's fill factor: {@code -Dbench.schemaSql="ALTER TABLE outbox_messages SET (fillfactor = 70)"}.
     */
    static final String SCHEMA_SQL = System.getProperty("bench.schemaSql", "");
    /**
     * async-profiler's agent ({@code libasyncProfiler.so}, from {@code tools.profiler:async-profiler} on Maven Central),
     * {@code -Dbench.profiler=/path/libasyncProfiler.so}: each contender's warm drain, and only it, is profiled (CPU,
     * per thread), loaded into the running JVM through {@code jcmd JVMTI.agent_load} at the drain's start and stopped
     * at its end; collapsed stacks in {@code target/benchmark/profiles/<contender>-r<round>.collapsed}.
     */
    static final String PROFILER = System.getProperty("bench.profiler", "");

    private Path work;
    private TestPostgres pg;
    private ChildKafka kafka;
    private long brokerPid;
    private final List<String> notes = new ArrayList<>();
    /** Events written to every contender's database before its warm-up; their records are compared byte for byte. */
    private final List<OutboxEvent> probe = BenchmarkSupport.backlog(50);
    /** Per contender and round: each probe event's record as published (key, value, headers in order, hex). */
    private final Map<String, Map<String, String>> probes = new LinkedHashMap<>();

    /** One contender's figures in one round. */
    record Run(
            String contender,
            int round,
            double warmEventsPerSecond,
            Map<String, Double> cpuPer100k,
            Map<String, Double> threadCpuPer100k,
            double peakRssMib,
            double coldSeconds,
            double coldJvmCpuSeconds) {

        double cpuTotal() {
            return cpuPer100k.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    private static Map<String, String> postgresSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String pair : POSTGRES_SETTINGS.split("\\|")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                settings.put(
                        pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return settings;
    }

    @Test
    void relayAgainstKafkaConnect() throws Exception {
        work = Files.createDirectories(Path.of("target", "contest-" + Long.toHexString(System.nanoTime()))
                .toAbsolutePath());
        String connectClasspath = connectClasspath();
        // both servers' data goes when they stop; the logs stay in the work directory
        try (TestPostgres durable = TestPostgres.start(true, postgresSettings());
                ChildKafka broker = ChildKafka.throwAway(Ports.free(), work.resolve("kafka"))
                        .start()) {
            pg = durable;
            kafka = broker;
            brokerPid = broker.pid();
            notes.add(settingsNote());
            List<Run> runs = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                if (CONTENDERS.contains("relay")) {
                    runs.add(contest("relay", round, this::relay));
                }
                if (CONTENDERS.contains("connect")) {
                    runs.add(contest("connect", round, suffix -> connect(suffix, connectClasspath)));
                }
            }
            String identical = compareProbes();
            double raw = LIMITS ? rawDecoding() : Double.NaN;
            List<CodecRun> bare = LIMITS ? bareProducer() : List.of();
            write(runs, raw, bare);
            assertThat(runs).allMatch(r -> r.warmEventsPerSecond() > 0 && r.coldSeconds() > 0);
            assertThat(identical).as("the relay's records against Connect's").isNull();
        }
    }

    // ---------------------------------------------------------------- one round of one contender

    /** A contender in its own JVM, streaming one database's slot to one topic. */
    interface Contender {
        void start();

        long pid();

        /** SIGTERM and wait: both shut down cleanly (offsets flushed), as an operator's restart would. */
        void stop();
    }

    /** Starts async-profiler in the contender's JVM when {@link #PROFILER} is set; nothing otherwise. */
    private static void startProfiler(long pid) throws IOException, InterruptedException {
        if (!PROFILER.isBlank()) {
            profilerCommand(pid, "start,event=cpu,interval=1ms,threads");
        }
    }

    /** Stops it and writes the collapsed stacks to {@code target/benchmark/profiles/<name>.collapsed}, when set. */
    private static void stopProfiler(long pid, String name) throws IOException, InterruptedException {
        if (!PROFILER.isBlank()) {
            Path file = Files.createDirectories(Path.of("target", "benchmark", "profiles"))
                    .resolve(name + ".collapsed")
                    .toAbsolutePath();
            profilerCommand(pid, "stop,collapsed,file=" + file);
        }
    }

    private static void profilerCommand(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        // quoted: jcmd would take the command's key=value pairs for its own options
        Process p = new ProcessBuilder(
                        jcmd.toString(), Long.toString(pid), "JVMTI.agent_load", PROFILER, '"' + command + '"')
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("jcmd %s", command).isTrue();
        assertThat(out).as("jcmd %s", command).contains("return code: 0").doesNotContainIgnoringCase("error");
    }

    private Run contest(String name, int round, Function<Setup, Contender> factory) throws Exception {
        Setup setup = new Setup(name + round + Long.toHexString(System.nanoTime() & 0xffffff));
        Contender contender = factory.apply(setup);
        try {
            return measure(name, round, setup, contender);
        } finally {
            contender.stop(); // also when a measurement failed: no contender outlives the benchmark
        }
    }

    private Run measure(String name, int round, Setup setup, Contender contender) throws Exception {
        contender.start();
        awaitSlotActive(setup);
        long expected = 0;

        // the same events (same ids, columns and payloads) in every contender's database, to compare their records
        OutboxRows.write(
                new DriverManagerDataSource(
                        pg.jdbcUrl(setup.database()),
                        LocalCredentials.POSTGRES.user(),
                        LocalCredentials.POSTGRES.password()),
                probe);
        expected += probe.size();

        // warm-up: half a backlog unless told otherwise, not measured
        expected += preload(setup.database(), WARMUP);
        awaitOnTopic(setup.topic(), expected);

        // warm: the backlog committed while the contender runs, from the commit to the last record on the topic
        expected += preload(setup.database(), BACKLOG);
        // the profiler's attach and stop fall outside the measured window
        startProfiler(contender.pid());
        Map<String, Double> before = cpu(setup, contender.pid());
        Map<String, Double> threadsBefore = ProcessStats.threadCpuSeconds(contender.pid());
        long t0 = System.nanoTime();
        awaitOnTopic(setup.topic(), expected);
        double warmSeconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Double> after = cpu(setup, contender.pid());
        Map<String, Double> threadsAfter = ProcessStats.threadCpuSeconds(contender.pid());
        stopProfiler(contender.pid(), name + "-r" + round);
        Map<String, Double> per100k = new LinkedHashMap<>();
        for (String process : after.keySet()) {
            per100k.put(process, (after.get(process) - before.getOrDefault(process, 0.0)) * 100_000 / BACKLOG);
        }
        Map<String, Double> threadsPer100k = new LinkedHashMap<>();
        threadsAfter.entrySet().stream()
                .map(e -> Map.entry(
                        e.getKey(), (e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0.0)) * 100_000 / BACKLOG))
                .filter(e -> e.getValue() >= 0.05)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> threadsPer100k.put(e.getKey(), e.getValue()));
        double rss = ProcessStats.peakRssKib(contender.pid()) / 1024.0;
        probes.put(name + " r" + round, probeRecords(setup.topic()));

        // cold: stopped, a backlog written meanwhile, started again: from the start to the last record on the topic
        contender.stop();
        expected += preload(setup.database(), BACKLOG);
        long c0 = System.nanoTime();
        contender.start();
        awaitOnTopic(setup.topic(), expected);
        double coldSeconds = (System.nanoTime() - c0) / 1e9;
        double coldCpu = ProcessStats.cpuSeconds(contender.pid());
        contender.stop();
        // pg_stat_user_tables: whether the relay's marks were HOT updates (no index entries) or not; and the
        // outbox's size on disk (the fill factor leaves room for the marks)
        String updates = BenchmarkSupport.sql(
                pg,
                setup.database(),
                "SELECT n_tup_upd || ' updates, ' || n_tup_hot_upd || ' HOT, ' || n_live_tup || ' rows in '"
                        + " || pg_size_pretty(pg_table_size(relid)) || ' (indexes '"
                        + " || pg_size_pretty(pg_indexes_size(relid)) || ')' FROM pg_stat_user_tables"
                        + " WHERE relname = 'outbox_messages'");
        notes.add(String.format("%s r%d, outbox rows (pg_stat_user_tables): %s", name, round, updates));
        dropSlot(setup);
        Run run = new Run(name, round, BACKLOG / warmSeconds, per100k, threadsPer100k, rss, coldSeconds, coldCpu);
        System.out.printf(
                "CONTEST %s round %d: warm %.0f events/s, CPU-s per 100k %s (total %.2f), peak RSS %.0f MiB, cold %.1f s"
                        + " (JVM CPU %.1f s); outbox rows: %s%n",
                name, round, run.warmEventsPerSecond(), per100k, run.cpuTotal(), rss, coldSeconds, coldCpu, updates);
        return run;
    }

    /** One contender's database (migrated by payments-api's Flyway migrations), slot and topic. */
    final class Setup {
        final String suffix;
        final String database;

        Setup(String suffix) {
            this.suffix = suffix;
            this.database = "bench_" + suffix;
            SharedInfra.createDatabases(pg, database);
            OutboxRows.migrate(
                    pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
            if (!SCHEMA_SQL.isBlank()) {
                try (java.sql.Connection c = pg.connect(database);
                        java.sql.Statement statement = c.createStatement()) {
                    statement.execute(SCHEMA_SQL);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
            try (Admin admin = Admin.create(kafka.adminClientProperties())) {
                admin.createTopics(List.of(new NewTopic(topic(), 3, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        String database() {
            return database;
        }

        String slot() {
            return "slot_" + suffix;
        }

        String topicPattern() {
            return "t-" + suffix + "." + Topics.AGGREGATE_TYPE_PLACEHOLDER + ".events";
        }

        String topic() {
            return Topics.forAggregate(topicPattern(), EventTypes.PAYMENT);
        }
    }

    private Contender relay(Setup setup) {
        Map<String, String> env = new HashMap<>();
        env.put("RELAY_DB_HOST", pg.host());
        env.put("RELAY_DB_PORT", String.valueOf(pg.port()));
        env.put("RELAY_DB_NAME", setup.database());
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        env.put("RELAY_CDC_SLOT", setup.slot());
        env.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + setup.suffix);
        env.put("RELAY_TOPIC_PATTERN", setup.topicPattern());
        env.put("RELAY_HTTP_PORT", String.valueOf(Ports.free()));
        if (!EXTRA_JVM_OPTIONS.isBlank()) {
            env.put("JAVA_TOOL_OPTIONS", EXTRA_JVM_OPTIONS.replace("{name}", "relay-" + setup.suffix));
        }
        for (String pair : RELAY_ENV.split("\\|")) {
            if (pair.contains("=")) {
                env.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        RelayProcess process = new RelayProcess(env, "contest-" + setup.suffix);
        return new Contender() {
            @Override
            public void start() {
                process.start();
            }

            @Override
            public long pid() {
                return process.pid();
            }

            @Override
            public void stop() {
                try {
                    BenchmarkSupport.terminate(process.pid());
                } catch (NullPointerException notStarted) {
                    // never started: nothing to stop
                }
            }
        };
    }

    private java.util.Properties connectSettings(Setup setup) {
        java.util.Properties settings = ConnectWorker.connectorSettings(
                setup.slot(),
                "outbox_publication",
                pg.host(),
                pg.port(),
                setup.database(),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password(),
                kafka.bootstrapServers(),
                setup.topicPattern());
        for (String pair : CONNECT_SETTINGS.split("\\|")) {
            if (pair.contains("=")) {
                settings.setProperty(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        return settings;
    }

    private Contender connect(Setup setup, String classpath) {
        try (java.sql.Connection owner = pg.connect(setup.database())) {
            ConnectWorker.addCloudEventColumns(owner);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        ConnectWorker worker = new ConnectWorker(
                work.resolve("connect-" + setup.suffix),
                classpath,
                Ports.free(),
                kafka.bootstrapServers(),
                Map.of(),
                connectSettings(setup),
                EXTRA_JVM_OPTIONS.isBlank()
                        ? List.of()
                        : List.of(EXTRA_JVM_OPTIONS
                                .replace("{name}", "connect-" + setup.suffix)
                                .split(" ")));
        return new Contender() {
            @Override
            public void start() {
                worker.start();
            }

            @Override
            public long pid() {
                return worker.pid();
            }

            @Override
            public void stop() {
                worker.stop();
            }
        };
    }

    /** The worker's class path (see {@link ConnectWorker#classpath()}), noted in the report. */
    private String connectClasspath() throws Exception {
        String classpath = ConnectWorker.classpath();
        notes.add(ConnectWorker.description());
        return classpath;
    }

    // ---------------------------------------------------------------- the records, compared

    /** The probe events' records on a topic: key, value and every header (name and bytes, in order), in hex. */
    private Map<String, String> probeRecords(String topic) {
        Set<String> ids = probe.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
        Map<String, String> found = new TreeMap<>();
        Map<String, Object> settings = new HashMap<>(kafka.adminClientProperties());
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings)) {
            List<TopicPartition> partitions =
                    List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (found.size() < ids.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Header id = r.headers().lastHeader(MessageHeaders.ID);
                    String key = id == null ? null : new String(id.value(), StandardCharsets.UTF_8);
                    if (key != null && ids.contains(key)) {
                        StringBuilder record = new StringBuilder()
                                .append("key=")
                                .append(HexFormat.of().formatHex(r.key()))
                                .append(" value=")
                                .append(HexFormat.of().formatHex(r.value()));
                        for (Header h : r.headers()) {
                            record.append(' ')
                                    .append(h.key())
                                    .append('=')
                                    .append(HexFormat.of().formatHex(h.value()));
                        }
                        found.put(key, record.toString());
                    }
                }
            }
        }
        return found;
    }

    /** {@code null} when every relay round's probe records equal every Connect round's, else the first difference. */
    private String compareProbes() {
        Map<String, String> reference = null;
        String referenceName = null;
        for (Map.Entry<String, Map<String, String>> e : probes.entrySet()) {
            if (e.getValue().size() != probe.size()) {
                return e.getKey() + ": " + e.getValue().size() + " of " + probe.size() + " probe records found";
            }
            if (reference == null) {
                reference = e.getValue();
                referenceName = e.getKey();
                continue;
            }
            for (Map.Entry<String, String> record : reference.entrySet()) {
                String other = e.getValue().get(record.getKey());
                if (!record.getValue().equals(other)) {
                    return "event " + record.getKey() + ": " + referenceName + " " + record.getValue() + " / "
                            + e.getKey() + " " + other;
                }
            }
        }
        if (probes.size() > 1) {
            notes.add("records byte-identical across " + String.join(", ", probes.keySet()) + ": " + probe.size()
                    + " events written to each contender's database, key, value and every header (name, bytes,"
                    + " order) compared");
        }
        return null;
    }

    // ---------------------------------------------------------------- the raw limits

    /** pg_recvlogical (pgoutput, the relay's publication) decoding one backlog's WAL, when it is installed. */
    private double rawDecoding() throws Exception {
        Path binary = BenchmarkSupport.pgRecvlogical().orElse(null);
        if (binary == null) {
            notes.add("raw decoding not measured: pg_recvlogical is not on the PATH (Debian: postgresql-client)");
            return Double.NaN;
        }
        Setup setup = new Setup("raw" + Long.toHexString(System.nanoTime() & 0xffffff));
        sql(setup, "SELECT pg_create_logical_replication_slot('" + setup.slot() + "', 'pgoutput')");
        preload(setup.database(), BACKLOG);
        String end = sql(setup, "SELECT pg_current_wal_lsn()::text");
        ProcessBuilder recvlogical = BenchmarkSupport.recvlogical(
                binary,
                pg,
                setup.database(),
                setup.slot(),
                "outbox_publication",
                end,
                work.resolve("pg_recvlogical.log"));
        long t0 = System.nanoTime();
        Process p = recvlogical.start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        double rate = BACKLOG / ((System.nanoTime() - t0) / 1e9);
        assertThat(p.exitValue())
                .as("pg_recvlogical, see " + work.resolve("pg_recvlogical.log"))
                .isZero();
        dropSlot(setup);
        return rate;
    }

    /** The bare producer with one codec: events/s, and CPU-seconds per 100,000 events of its JVM and of the broker. */
    record CodecRun(String codec, double eventsPerSecond, double producerCpuPer100k, double brokerCpuPer100k) {

        static CodecRun mean(List<CodecRun> passes) {
            return new CodecRun(
                    passes.get(0).codec(),
                    mean(passes, CodecRun::eventsPerSecond),
                    mean(passes, CodecRun::producerCpuPer100k),
                    mean(passes, CodecRun::brokerCpuPer100k));
        }

        private static double mean(List<CodecRun> passes, ToDoubleFunction<CodecRun> figure) {
            return passes.stream().mapToDouble(figure).average().orElseThrow();
        }
    }

    /**
     * A producer with the relay's settings sending a backlog of the relay's records (same key, value and headers), in
     * this JVM: the ceiling of any relay on this broker. Also with the other codecs, for the codec choice.
     *
     * @return per codec, the mean of {@link #BARE_PASSES} passes after one that warms the JIT; the codecs take turns,
     *         so a slow moment of the machine falls on all of them
     */
    private List<CodecRun> bareProducer() throws Exception {
        List<EventRecord> records = new ArrayList<>(BACKLOG);
        String topic = "bare-" + Long.toHexString(System.nanoTime());
        try (Admin admin = Admin.create(kafka.adminClientProperties())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        for (OutboxEvent e : BenchmarkSupport.backlog(BACKLOG)) {
            records.add(new EventRecord(
                    topic,
                    e.aggregateId().toString(),
                    new EventEnvelope(
                            e.id(),
                            e.eventType(),
                            e.schemaVersion(),
                            e.aggregateVersion(),
                            e.occurredAt(),
                            e.traceParent()),
                    e.payloadJson().getBytes(StandardCharsets.UTF_8)));
        }
        Map<String, List<CodecRun>> measured = new LinkedHashMap<>();
        for (int pass = 0; pass <= BARE_PASSES; pass++) {
            for (String codec : CODECS) {
                CodecRun run = send(records, codec);
                if (pass > 0) {
                    measured.computeIfAbsent(codec, c -> new ArrayList<>()).add(run);
                }
            }
        }
        return measured.values().stream().map(CodecRun::mean).toList();
    }

    private CodecRun send(List<EventRecord> records, String codec) throws Exception {
        Map<String, Object> settings =
                new HashMap<>(ConnectWorker.producerSettings(kafka.bootstrapServers(), Map.of()));
        settings.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        long self = ProcessHandle.current().pid();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(settings)) {
            double cpu0 = ProcessStats.cpuSeconds(self);
            double broker0 = ProcessStats.cpuSeconds(brokerPid);
            long t0 = System.nanoTime();
            List<Future<?>> acks = new ArrayList<>(records.size());
            for (EventRecord r : records) {
                acks.add(producer.send(r.toProducerRecord()));
            }
            for (Future<?> f : acks) {
                f.get();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            return new CodecRun(
                    codec,
                    records.size() / seconds,
                    (ProcessStats.cpuSeconds(self) - cpu0) * 100_000 / records.size(),
                    (ProcessStats.cpuSeconds(brokerPid) - broker0) * 100_000 / records.size());
        }
    }

    // ---------------------------------------------------------------- backlog, topic, slot

    private long preload(String database, int events) {
        return BenchmarkSupport.preload(pg, database, events);
    }

    private void awaitOnTopic(String topic, long expected) {
        BenchmarkSupport.awaitOnTopic(kafka, topic, expected);
    }

    private void awaitSlotActive(Setup setup) {
        BenchmarkSupport.awaitSlotActive(pg, setup.database(), setup.slot());
    }

    private void dropSlot(Setup setup) {
        BenchmarkSupport.dropSlot(pg, setup.database(), setup.slot());
    }

    private String sql(Setup setup, String query) {
        return BenchmarkSupport.sql(pg, setup.database(), query);
    }

    // ---------------------------------------------------------------- processes

    /**
     * CPU-seconds so far of the contender's JVM, its walsender, the rest of PostgreSQL (every other live process of
     * the server: backends, checkpointer, WAL writer; processes that end within the window are not counted) and the
     * broker's JVM.
     */
    private Map<String, Double> cpu(Setup setup, long contenderPid) throws IOException {
        long walsender = Long.parseLong(sql(
                setup, "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = '" + setup.slot() + "'"));
        long postmaster = pg.postmasterPid();
        Map<String, Double> cpu = new LinkedHashMap<>();
        cpu.put("jvm", ProcessStats.cpuSeconds(contenderPid));
        cpu.put("walsender", ProcessStats.cpuSeconds(walsender));
        double rest = ProcessStats.cpuSeconds(postmaster);
        for (ProcessHandle child :
                ProcessHandle.of(postmaster).orElseThrow().descendants().toList()) {
            if (child.pid() != walsender) {
                // keyed per process: one that ended within the window is left out, one that started counts whole
                cpu.put(
                        "pg:" + ProcessStats.postgresRole(child.pid()) + ":" + child.pid(),
                        ProcessStats.cpuSeconds(child.pid()));
            }
        }
        cpu.put("pg:postmaster:" + postmaster, rest);
        cpu.put("broker", ProcessStats.cpuSeconds(brokerPid));
        return cpu;
    }

    // ---------------------------------------------------------------- report

    private String settingsNote() {
        return "PostgreSQL " + PostgresServer.MAJOR_VERSION
                + " durable (fsync, full_page_writes, synchronous_commit on);"
                + " broker in its own JVM; both contenders " + String.join(" ", JVM_FLAGS) + "; backlog " + BACKLOG
                + " events (80% PaymentCreated, 20% PaymentRefunded) in one transaction";
    }

    private void write(List<Run> runs, double raw, List<CodecRun> bare) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("| | ");
        runs.forEach(
                r -> md.append(r.contender()).append(" r").append(r.round()).append(" | "));
        md.append("relay / Connect (means) |\n|---|");
        runs.forEach(r -> md.append("---:|"));
        md.append("---:|\n");
        row(md, runs, "warm drain (events/s)", Run::warmEventsPerSecond, "%.0f");
        row(md, runs, "CPU-s per 100k, all processes", Run::cpuTotal, "%.2f");
        row(md, runs, "CPU-s per 100k, contender JVM", r -> r.cpuPer100k().get("jvm"), "%.2f");
        row(md, runs, "CPU-s per 100k, walsender", r -> r.cpuPer100k().get("walsender"), "%.2f");
        row(
                md,
                runs,
                "CPU-s per 100k, rest of PostgreSQL",
                r -> r.cpuPer100k().entrySet().stream()
                        .filter(e -> e.getKey().startsWith("pg:"))
                        .mapToDouble(Map.Entry::getValue)
                        .sum(),
                "%.2f");
        row(md, runs, "CPU-s per 100k, broker", r -> r.cpuPer100k().get("broker"), "%.2f");
        row(md, runs, "peak RSS of the contender (MiB)", Run::peakRssMib, "%.0f");
        row(md, runs, "cold: start to all on the topic (s)", Run::coldSeconds, "%.1f");
        row(md, runs, "cold: contender JVM CPU-s from start to done", Run::coldJvmCpuSeconds, "%.1f");
        md.append("\nWhere each contender's JVM spends its CPU in the warm drain (CPU-s per 100k events per thread,"
                + " thread names as Linux keeps them, digits folded to N; threads under 0.05 left out):\n\n");
        for (Run r : runs) {
            md.append(String.format("- %s r%d: ", r.contender(), r.round()));
            md.append(r.threadCpuPer100k().entrySet().stream()
                    .map(e -> String.format("%s %.2f", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", ")));
            md.append('\n');
        }
        md.append(
                "\nThe rest of PostgreSQL in the warm drain by kind of process (CPU-s per 100k events; a client backend"
                        + " by its user; under 0.01 left out; a process that ended within the window is not counted):\n\n");
        for (Run r : runs) {
            Map<String, Double> kinds = new TreeMap<>();
            r.cpuPer100k().forEach((key, value) -> {
                if (key.startsWith("pg:")) {
                    kinds.merge(key.substring(3, key.lastIndexOf(':')), value, Double::sum);
                }
            });
            md.append(String.format("- %s r%d: ", r.contender(), r.round()));
            String listed = kinds.entrySet().stream()
                    .filter(e -> e.getValue() >= 0.01)
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .map(e -> String.format("%s %.2f", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", "));
            md.append(listed.isEmpty() ? "none over 0.01" : listed);
            md.append('\n');
        }
        md.append("\n");
        if (LIMITS) {
            if (!Double.isNaN(raw)) {
                md.append(String.format(
                        "- raw decoding of one backlog's WAL (pg_recvlogical, pgoutput): %.0f events/s%n", raw));
            }
            md.append(String.format(
                    "- bare producer, relay settings, in the benchmark's JVM, per codec (mean of %d passes of one backlog"
                            + " each, after one not counted): ",
                    BARE_PASSES));
            md.append(bare.stream()
                    .map(c -> String.format(
                            "%s %.0f events/s, CPU-s per 100k: producer %.2f + broker %.2f = %.2f",
                            c.codec(),
                            c.eventsPerSecond(),
                            c.producerCpuPer100k(),
                            c.brokerCpuPer100k(),
                            c.producerCpuPer100k() + c.brokerCpuPer100k()))
                    .collect(Collectors.joining("; ")));
            md.append('\n');
        } else {
            md.append("- raw decoding and the bare producer not measured (-Dbench.limits=false)\n");
        }
        md.append(String.format("- warm-up before the warm drain: %d events%n", WARMUP));
        if (!EXTRA_JVM_OPTIONS.isBlank()) {
            md.append("- both contenders' JVMs also ran with: ")
                    .append(EXTRA_JVM_OPTIONS)
                    .append('\n');
        }
        if (!RELAY_ENV.isBlank()) {
            md.append("- the relay's extra environment: ").append(RELAY_ENV).append('\n');
        }
        if (!CONNECT_SETTINGS.isBlank()) {
            md.append("- Connect's connector settings over the relay's: ")
                    .append(CONNECT_SETTINGS)
                    .append('\n');
        }
        if (!PROFILER.isBlank()) {
            md.append("- profiled (async-profiler, CPU, 1 ms) during each warm drain: target/benchmark/profiles\n");
        }
        if (!SCHEMA_SQL.isBlank()) {
            md.append("- run on every contender's database after the migrations: ")
                    .append(SCHEMA_SQL)
                    .append('\n');
        }
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        Path dir = Files.createDirectories(Path.of("target", "benchmark"));
        Files.writeString(dir.resolve("relay-vs-connect.md"), md.toString());
        System.out.println(md);
    }

    private static void row(StringBuilder md, List<Run> runs, String name, Function<Run, Double> f, String format) {
        md.append("| ").append(name).append(" | ");
        for (Run r : runs) {
            md.append(String.format(format, f.apply(r))).append(" | ");
        }
        double relay = runs.stream()
                .filter(r -> r.contender().equals("relay"))
                .mapToDouble(f::apply)
                .average()
                .orElse(Double.NaN);
        double connect = runs.stream()
                .filter(r -> r.contender().equals("connect"))
                .mapToDouble(f::apply)
                .average()
                .orElse(Double.NaN);
        md.append(String.format("%.2f", relay / connect)).append(" |\n");
    }
}
