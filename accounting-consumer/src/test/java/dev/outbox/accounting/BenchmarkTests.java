package dev.outbox.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.outbox.infra.Ports;
import dev.outbox.infra.PostgresServer;
import dev.outbox.infra.SharedInfra;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.RelayApplication;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The benchmark (not part of {@code ./mvnw verify}): every hop measured side by side in one run on this machine,
 * each against its raw limit, printed and written to target/benchmark as Markdown, CSV and an HTML chart.
 * {@code ./mvnw -B -Pbenchmark -pl accounting-consumer -am verify [-Dbench.backlog=100000]}
 */
@Tag("benchmark")
class BenchmarkTests {

    static final int BACKLOG = Integer.getInteger("bench.backlog", 100_000);
    /** Which parts to run: any of cdc, polling, consumer, e2e, api (comma-separated); all by default. */
    static final List<String> ONLY = List.of(System.getProperty("bench.only", "cdc,polling,consumer,e2e,api")
            .split(","));
    static final String PAYLOAD = "{\"paymentId\":\"%s\",\"clientId\":\"client-a\",\"amount\":\"10.00\","
            + "\"currency\":\"EUR\",\"occurredAt\":\"2026-12-02T10:00:00Z\"}";

    final Map<String, double[]> rows = new LinkedHashMap<>();
    final List<String> notes = new ArrayList<>();

    @Test
    void measureEveryHop() throws Exception {
        String kafka = SharedInfra.kafka().bootstrapServers();

        if (ONLY.contains("cdc") || ONLY.contains("polling")) {
            bareProducer(kafka); // warm-up, as the relay gets one
            double bare = bareProducer(kafka);
            row("relay: bare KafkaProducer (raw limit)", bare, 1.0);
            if (ONLY.contains("cdc")) {
                double cdc = cdcDrain(kafka);
                row("relay: CDC drain of the backlog", cdc, cdc / bare);
            }
            for (int workers : ONLY.contains("polling") ? new int[] {1, 2, 4} : new int[0]) {
                double polling = pollingDrain(kafka, workers);
                row("relay: polling drain, " + workers + " worker(s)", polling, polling / bare);
            }
        }
        if (ONLY.contains("consumer")) {
            String topic = "bench-consume-" + Long.toHexString(System.nanoTime());
            EventFixtures.createTopic(topic, 3);
            produceEvents(kafka, topic);
            double bareConsumer = bareConsumer(kafka, topic);
            row("consumer: bare KafkaConsumer, no work (raw limit)", bareConsumer, 1.0);
            double inbox = inboxConsumer(topic);
            row("consumer: inbox + ledger, one transaction per batch", inbox, inbox / bareConsumer);
        }
        if (ONLY.contains("e2e")) {
            endToEnd(kafka);
        }
        write();
    }

    private double bareProducer(String kafka) throws Exception {
        String topic = "bench-bare-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 3);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers", kafka, "acks", "all", "enable.idempotence", true, "linger.ms", 2,
                "batch.size", 256 * 1024, "compression.type", "lz4",
                "key.serializer", StringSerializer.class, "value.serializer", ByteArraySerializer.class))) {
            long t0 = System.nanoTime();
            List<Future<?>> acks = new ArrayList<>(BACKLOG);
            for (int i = 0; i < BACKLOG; i++) {
                String aggregate = UUID.randomUUID().toString();
                RecordHeaders h = headers(UUID.randomUUID().toString());
                acks.add(producer.send(new ProducerRecord<>(topic, null, aggregate,
                        PAYLOAD.formatted(aggregate).getBytes(StandardCharsets.UTF_8), h)));
            }
            for (Future<?> f : acks) {
                f.get();
            }
            return BACKLOG / seconds(t0);
        }
    }

    /**
     * The backlog drained by a running, warmed-up relay (a first backlog of half the size warms the JIT), from the
     * first to the last published_at; and, as a note, the same after a restart, wall clock from the relay's start.
     */
    private double cdcDrain(String kafka) throws Exception {
        String database = migratedPayments();
        String suffix = "bcdc" + Long.toHexString(System.nanoTime());
        String[] args = relayArgs(database, kafka, suffix, "cdc");
        double streaming;
        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            await().atMost(Duration.ofSeconds(90)).until(() -> slotActive(database, "slot_" + suffix));
            preload(database, BACKLOG / 2);
            awaitDrained(relay, database, BACKLOG / 2);
            preload(database, BACKLOG);
            long committed = System.nanoTime();
            streaming = BACKLOG / ((awaitDrained(relay, database, BACKLOG / 2 + BACKLOG) - committed) / 1e9);
        }
        Instant afterRestart = preload(database, BACKLOG);
        long t0 = System.nanoTime();
        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            awaitDrained(relay, database, BACKLOG);
            notes.add(String.format("CDC drain after a restart: %.0f events/s wall clock from the relay's start, "
                    + "%.0f events/s between the first and the last published_at.", BACKLOG / seconds(t0),
                    BACKLOG / publishSpanSeconds(database, afterRestart)));
        }
        return streaming;
    }

    private double pollingDrain(String kafka, int workers) throws Exception {
        String database = migratedPayments();
        Instant measured = preload(database, BACKLOG);
        String suffix = "bpoll" + workers + Long.toHexString(System.nanoTime());
        String[] args = concat(relayArgs(database, kafka, suffix, "polling"), "--relay.polling.workers=" + workers,
                "--relay.polling.batch-size=500", "--relay.polling.idle-sleep=10ms");
        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            awaitDrained(relay, database, BACKLOG);
            return BACKLOG / publishSpanSeconds(database, measured);
        }
    }

    private void produceEvents(String kafka, String topic) throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers", kafka, "acks", "all", "linger.ms", 5, "batch.size", 256 * 1024,
                "key.serializer", StringSerializer.class, "value.serializer", ByteArraySerializer.class))) {
            for (int i = 0; i < BACKLOG; i++) {
                String aggregate = UUID.randomUUID().toString();
                producer.send(new ProducerRecord<>(topic, null, aggregate,
                        PAYLOAD.formatted(aggregate).getBytes(StandardCharsets.UTF_8),
                        headers(UUID.randomUUID().toString())));
            }
            producer.flush();
        }
    }

    private double bareConsumer(String kafka, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", kafka, "group.id", "bare-" + topic, "auto.offset.reset", "earliest",
                "max.poll.records", 500, "fetch.max.wait.ms", 50,
                "key.deserializer", ByteArrayDeserializer.class, "value.deserializer", ByteArrayDeserializer.class))) {
            consumer.subscribe(List.of(topic));
            long seen = 0;
            long t0 = System.nanoTime();
            while (seen < BACKLOG) {
                seen += consumer.poll(Duration.ofMillis(200)).count();
            }
            return BACKLOG / seconds(t0);
        }
    }

    private double inboxConsumer(String topic) {
        String database = EventFixtures.accountingDatabase();
        JdbcClient jdbc = EventFixtures.jdbc(database);
        try (ConfigurableApplicationContext consumer = AccountingApplication.builder()
                .run(EventFixtures.consumerArgs(database, topic, "inbox-" + topic))) {
            // the consumer's own counter, so that watching for the end costs the database nothing
            io.micrometer.core.instrument.Counter applied = consumer.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                    .counter("accounting_events", "outcome", "applied");
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(200))
                    .until(() -> applied.count() >= BACKLOG);
            assertThat(jdbc.sql("SELECT count(*) FROM ledger_entries").query(Long.class).single()).isEqualTo(BACKLOG);
            double span = jdbc.sql("SELECT EXTRACT(EPOCH FROM max(created_at) - min(created_at)) FROM ledger_entries")
                    .query(Double.class).single();
            return BACKLOG / span;
        }
    }

    /** Fixed offered load over HTTP; latency from the intended send time (no coordinated omission). */
    private void endToEnd(String kafka) throws Exception {
        int rate = Integer.getInteger("bench.rate", 500);
        int seconds = Integer.getInteger("bench.seconds", 20);
        String payments = migratedPayments();
        String accounting = EventFixtures.accountingDatabase();
        String suffix = "be2e" + Long.toHexString(System.nanoTime());
        try (ConfigurableApplicationContext relay = RelayApplication.builder()
                .run(relayArgs(payments, kafka, suffix, "cdc"));
                ConfigurableApplicationContext api = new SpringApplicationBuilder(PaymentsApplication.class).run(
                        "--server.port=0", "--management.server.port=0", "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(payments),
                        "--spring.datasource.username=" + PostgresServer.USER,
                        "--spring.datasource.password=" + PostgresServer.PASSWORD);
                ConfigurableApplicationContext consumer = AccountingApplication.builder().run(
                        EventFixtures.consumerArgs(accounting, "t-" + suffix + ".payment.events", "e2e-" + suffix))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> slotActive(payments, "slot_" + suffix));
            String url = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port") + "/payments";
            HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(32)).build();
            Histogram httpLatency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            ExecutorService senders = Executors.newFixedThreadPool(32);
            long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
            long start = System.nanoTime();
            int total = rate * seconds;
            List<Future<?>> sent = new ArrayList<>(total);
            AtomicLong failures = new AtomicLong();
            for (int i = 0; i < total; i++) {
                long intended = start + i * intervalNanos;
                long wait = intended - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                int n = i;
                sent.add(senders.submit(() -> {
                    try {
                        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer local-key-client-a")
                                .header("Idempotency-Key", suffix + "-" + n)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"3.00\",\"currency\":\"EUR\"}"))
                                .build(), HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() != 201) {
                            failures.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                    synchronized (httpLatency) {
                        httpLatency.recordValue(Math.max(0, (System.nanoTime() - intended) / 1000));
                    }
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
            double offered = total / seconds(start);
            JdbcClient ledger = EventFixtures.jdbc(accounting);
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() ->
                    ledger.sql("SELECT count(*) FROM ledger_entries").query(Long.class).single() == total - failures.get());
            Map<UUID, Instant> committed = new HashMap<>();
            EventFixtures.jdbc(payments).sql("SELECT id, created_at FROM payments").query((rs, i) ->
                    committed.put(rs.getObject(1, UUID.class), rs.getTimestamp(2).toInstant())).list();
            Histogram e2e = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
            ledger.sql("SELECT payment_id, created_at FROM ledger_entries").query((rs, i) -> {
                Instant c = committed.get(rs.getObject(1, UUID.class));
                e2e.recordValue(Math.max(0, Duration.between(c, rs.getTimestamp(2).toInstant()).toNanos() / 1000));
                return true;
            }).list();
            row(String.format("end to end at %.0f payments/s offered, commit -> ledger p50 (ms)", offered),
                    e2e.getValueAtPercentile(50) / 1000.0, Double.NaN);
            row("end to end, commit -> ledger p99 (ms)", e2e.getValueAtPercentile(99) / 1000.0, Double.NaN);
            row("end to end, commit -> ledger max (ms)", e2e.getMaxValue() / 1000.0, Double.NaN);
            row("API at the same load, HTTP p50 (ms, from intended send time)",
                    httpLatency.getValueAtPercentile(50) / 1000.0, Double.NaN);
            row("API at the same load, HTTP p99 (ms, from intended send time)",
                    httpLatency.getValueAtPercentile(99) / 1000.0, Double.NaN);
            notes.add("end to end: " + total + " payments offered, " + failures.get() + " failed requests");
            senders.shutdown();
        }
    }

    private void row(String name, double value, double ratio) {
        rows.put(name, new double[] {value, ratio});
        System.out.printf("BENCH %-70s %12.1f %s%n", name, value, Double.isNaN(ratio) ? "" : String.format("%.2f", ratio));
    }

    private void write() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "benchmark"));
        StringBuilder md = new StringBuilder("| measurement | value | ratio to raw limit |\n| --- | ---: | ---: |\n");
        StringBuilder csv = new StringBuilder("measurement,value,ratio\n");
        StringBuilder svg = new StringBuilder();
        double max = rows.entrySet().stream().filter(e -> e.getKey().contains("/s") || e.getKey().startsWith("relay")
                || e.getKey().startsWith("consumer")).mapToDouble(e -> e.getValue()[0]).max().orElse(1);
        int y = 10;
        for (var e : rows.entrySet()) {
            double v = e.getValue()[0];
            double r = e.getValue()[1];
            String unit = e.getKey().contains("(ms") ? "" : " events/s";
            md.append(String.format("| %s | %.1f%s | %s |%n", e.getKey(), v, unit, Double.isNaN(r) ? "" : String.format("%.2f", r)));
            csv.append(String.format("\"%s\",%.1f,%s%n", e.getKey(), v, Double.isNaN(r) ? "" : String.format("%.3f", r)));
            if (unit.isEmpty()) {
                continue;
            }
            int width = (int) (600 * v / max);
            svg.append(String.format("<text x='0' y='%d' font-size='12'>%s</text><rect x='420' y='%d' width='%d' "
                    + "height='14' fill='steelblue'/><text x='%d' y='%d' font-size='12'>%.0f</text>%n",
                    y + 11, e.getKey(), y, width, 425 + width, y + 11, v));
            y += 22;
        }
        String notesText = String.join("\n", notes.stream().map(n -> "- " + n).toList());
        Files.writeString(dir.resolve("results.md"), "# Benchmark (backlog " + BACKLOG + ")\n\n" + md + "\n" + notesText + "\n");
        Files.writeString(dir.resolve("results.csv"), csv.toString());
        Files.writeString(dir.resolve("results.html"), "<html><body><h1>Throughput (events/s)</h1><svg width='1100' "
                + "height='" + (y + 10) + "'>" + svg + "</svg><pre>" + md + "\n" + notesText + "</pre></body></html>");
        System.out.println(md + "\n" + notesText);
    }

    private static String migratedPayments() {
        String name = SharedInfra.freshDatabase("payments");
        Flyway.configure().dataSource(SharedInfra.postgres().jdbcUrl(name), PostgresServer.USER,
                PostgresServer.PASSWORD).locations("classpath:db/payments").load().migrate();
        return name;
    }

    /** Inserts {@code rows} outbox rows in one transaction, all with one occurred_at, which it returns. */
    private static Instant preload(String database, int rows) throws Exception {
        Instant occurredAt = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        try (Connection c = SharedInfra.postgres().connect(database); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                             schema_version, payload, trace_parent, occurred_at)
                SELECT gen_random_uuid(), 'payment', a, 1, 'PaymentCreated', 1,
                       jsonb_build_object('paymentId', a, 'clientId', 'client-a', 'amount', '10.00', 'currency', 'EUR',
                                          'occurredAt', '2026-12-02T10:00:00Z'),
                       '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', ?
                  FROM (SELECT gen_random_uuid() AS a FROM generate_series(1, ?)) g""")) {
            s.setTimestamp(1, Timestamp.from(occurredAt));
            s.setInt(2, rows);
            s.executeUpdate();
        }
        return occurredAt;
    }

    private static String[] relayArgs(String database, String kafka, String suffix, String mode) {
        return new String[] {
            "--server.port=" + Ports.free(), "--relay.mode=" + mode,
            "--relay.db.port=" + SharedInfra.postgres().port(), "--relay.db.name=" + database,
            "--relay.kafka.bootstrap-servers=" + kafka,
            "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
            "--relay.cdc.slot-name=slot_" + suffix, "--relay.cdc.offsets-topic=offsets-" + suffix};
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static RecordHeaders headers(String id) {
        RecordHeaders h = new RecordHeaders();
        h.add("id", id.getBytes(StandardCharsets.UTF_8));
        h.add("event_type", "PaymentCreated".getBytes(StandardCharsets.UTF_8));
        h.add("schema_version", "1".getBytes(StandardCharsets.UTF_8));
        h.add("aggregate_version", "1".getBytes(StandardCharsets.UTF_8));
        h.add("occurred_at", Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        h.add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes(StandardCharsets.UTF_8));
        return h;
    }

    /**
     * Watches the relay's own counter of acknowledged events (free for the database) until it reaches
     * {@code total}, then checks every row is marked.
     *
     * @return {@link System#nanoTime()} when the counter reached the total
     */
    private static long awaitDrained(ConfigurableApplicationContext relay, String database, long total) {
        io.micrometer.core.instrument.Counter published = relay.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                .counter("outbox_relay_published");
        await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> published.count() >= total);
        long done = System.nanoTime();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> pending(database) == 0);
        return done;
    }

    private static long pending(String database) {
        return EventFixtures.jdbc(database).sql("SELECT count(*) FROM outbox_messages WHERE published_at IS NULL")
                .query(Long.class).single();
    }

    private static double publishSpanSeconds(String database, Instant occurredAt) {
        return EventFixtures.jdbc(database).sql("""
                SELECT EXTRACT(EPOCH FROM max(published_at) - min(published_at)) FROM outbox_messages
                 WHERE occurred_at = :occurredAt""").param("occurredAt", Timestamp.from(occurredAt))
                .query(Double.class).single();
    }

    private static boolean slotActive(String database, String slot) {
        return EventFixtures.jdbc(database).sql(
                "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = :slot").param("slot", slot)
                .query(Long.class).single() == 1;
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
