package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.Postgres;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The benchmark (not part of {@code ./mvnw verify}): every hop measured side by side in one run on this machine,
 * each against its raw limit, printed and written to target/benchmark as Markdown, CSV and an HTML chart.
 * {@code ./mvnw -B -Pbenchmark -pl system-tests -am verify -Dtest=BenchmarkTests [-Dbench.backlog=100000]}
 */
@Tag("benchmark")
class BenchmarkTests {

    static final int BACKLOG = Integer.getInteger("bench.backlog", 100_000);
    /** Whether the polling drain's outbox is analyzed after the preload, as autovacuum would soon (default true). */
    private static final boolean ANALYZE_BEFORE_POLLING =
            Boolean.parseBoolean(System.getProperty("bench.analyze", "true"));

    /** Which parts to run: any of cdc, polling, consumer, e2e, api (comma-separated); all by default. */
    static final List<String> ONLY = List.of(
            System.getProperty("bench.only", "cdc,polling,consumer,e2e,api").split(","));

    static final String PAYLOAD = "{\"paymentId\":\"%s\",\"clientId\":\"client-a\",\"amount\":\"10.00\","
            + "\"currency\":\"EUR\",\"occurredAt\":\"2026-12-02T10:00:00Z\"}";

    final Map<String, double[]> rows = new LinkedHashMap<>();
    final List<String> notes = new ArrayList<>();
    /** Rows whose value is a sentence instead of a figure (what cannot be measured, and why). */
    final Map<String, String> remarks = new HashMap<>();

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
        if (ONLY.contains("api")) {
            api();
        }
        if (ONLY.contains("e2e")) {
            for (String run :
                    System.getProperty("bench.e2e", "cdc,polling,cdc-jdbc").split(",")) {
                endToEnd(run.replace("-jdbc", ""), run.endsWith("-jdbc"));
            }
        }
        write();
    }

    private double bareProducer(String kafka) throws Exception {
        String topic = "bench-bare-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 3);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers",
                kafka,
                "acks",
                "all",
                "enable.idempotence",
                true,
                "linger.ms",
                2,
                "batch.size",
                256 * 1024,
                "compression.type",
                "lz4",
                "key.serializer",
                StringSerializer.class,
                "value.serializer",
                ByteArraySerializer.class))) {
            long t0 = System.nanoTime();
            List<Future<?>> acks = new ArrayList<>(BACKLOG);
            for (int i = 0; i < BACKLOG; i++) {
                String aggregate = UUID.randomUUID().toString();
                RecordHeaders h = headers(UUID.randomUUID().toString());
                acks.add(producer.send(new ProducerRecord<>(
                        topic, null, aggregate, PAYLOAD.formatted(aggregate).getBytes(StandardCharsets.UTF_8), h)));
            }
            for (Future<?> f : acks) {
                f.get();
            }
            return BACKLOG / seconds(t0);
        }
    }

    /**
     * The backlog drained by a running, warmed-up relay (a first backlog of half the size warms the JIT), from the
     * commit to the relay's own count of acknowledged events; and, as a note, the same after a restart, wall clock from
     * the relay's start.
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
        preload(database, BACKLOG);
        long t0 = System.nanoTime();
        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            awaitDrained(relay, database, BACKLOG);
            notes.add(String.format(
                    "CDC drain after a restart: %.0f events/s wall clock from the relay's start.",
                    BACKLOG / seconds(t0)));
        }
        return streaming;
    }

    private double pollingDrain(String kafka, int workers) throws Exception {
        String database = migratedPayments();
        Instant measured = preload(database, BACKLOG);
        if (ANALYZE_BEFORE_POLLING) {
            // what autovacuum does within a minute of a bulk write, and what a user's outbox always has: statistics.
            // Without them (a table never analyzed) the planner takes the pending rows for a handful and sorts them
            // all for every claim.
            EventFixtures.jdbc(database).sql("ANALYZE outbox_messages").update();
        }
        String suffix = "bpoll" + workers + Long.toHexString(System.nanoTime());
        String[] args = concat(
                relayArgs(database, kafka, suffix, "polling"),
                "--relay.polling.workers=" + workers,
                "--relay.polling.batch-size=500",
                "--relay.polling.idle-sleep=10ms");
        try (ConfigurableApplicationContext relay = RelayApplication.builder().run(args)) {
            awaitDrained(relay, database, BACKLOG);
            return BACKLOG / publishSpanSeconds(database, measured);
        }
    }

    private void produceEvents(String kafka, String topic) throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers",
                kafka,
                "acks",
                "all",
                "linger.ms",
                5,
                "batch.size",
                256 * 1024,
                "key.serializer",
                StringSerializer.class,
                "value.serializer",
                ByteArraySerializer.class))) {
            for (int i = 0; i < BACKLOG; i++) {
                String aggregate = UUID.randomUUID().toString();
                producer.send(new ProducerRecord<>(
                        topic,
                        null,
                        aggregate,
                        PAYLOAD.formatted(aggregate).getBytes(StandardCharsets.UTF_8),
                        headers(UUID.randomUUID().toString())));
            }
            producer.flush();
        }
    }

    private double bareConsumer(String kafka, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers",
                kafka,
                "group.id",
                "bare-" + topic,
                "auto.offset.reset",
                "earliest",
                "max.poll.records",
                500,
                "fetch.max.wait.ms",
                50,
                "key.deserializer",
                ByteArrayDeserializer.class,
                "value.deserializer",
                ByteArrayDeserializer.class))) {
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
                .run(EventFixtures.consumerArgs(
                        database,
                        topic,
                        "inbox-" + topic,
                        java.util.Arrays.stream(System.getProperty("bench.consumerArgs", "")
                                        .split(" "))
                                .filter(a -> a.contains("="))
                                .toArray(String[]::new)))) {
            // the consumer's own counter, so that watching for the end costs the database nothing
            Counter applied = consumer.getBean(MeterRegistry.class).counter("accounting_events", "outcome", "applied");
            await().atMost(Duration.ofMinutes(10))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> applied.count() >= BACKLOG);
            assertThat(jdbc.sql("SELECT count(*) FROM ledger_entries")
                            .query(Long.class)
                            .single())
                    .isEqualTo(BACKLOG);
            double span = jdbc.sql("SELECT EXTRACT(EPOCH FROM max(created_at) - min(created_at)) FROM ledger_entries")
                    .query(Double.class)
                    .single();
            return BACKLOG / span;
        }
    }

    /**
     * The whole pipeline as in production, each service in its own JVM (PipelineHarness), at a fixed offered load
     * over HTTP: commit -> published -> ledger per payment, from the rows' own timestamps, and each service's
     * peak RSS. A warm-up at the same rate comes first and is not counted. In the mode {@code connect}, Debezium on a
     * Kafka Connect worker replaces the relay (the relay does not run); Connect does not set published_at, so only
     * commit -> ledger is measured there.
     */
    private void endToEnd(String mode, boolean viaJdbc) throws Exception {
        int rate = Integer.getInteger("bench.rate", 500);
        int seconds = Integer.getInteger("bench.seconds", 20);
        try (PipelineHarness pipeline = new PipelineHarness(mode);
                JdbcPayments jdbcPayments = new JdbcPayments(pipeline.postgres(), "payments")) {
            String url = pipeline.apiUrl() + "/payments";
            java.util.function.Consumer<String> jdbcPayment = jdbcPayments::write;
            JdbcClient payments = JdbcClient.create(new org.springframework.jdbc.datasource.DriverManagerDataSource(
                    pipeline.postgres().jdbcUrl("payments"),
                    LocalCredentials.POSTGRES.user(),
                    LocalCredentials.POSTGRES.password()));
            JdbcClient ledger = JdbcClient.create(new org.springframework.jdbc.datasource.DriverManagerDataSource(
                    pipeline.postgres().jdbcUrl("accounting"),
                    LocalCredentials.POSTGRES.user(),
                    LocalCredentials.POSTGRES.password()));
            Load warmUp = viaJdbc ? offer(jdbcPayment, rate, 5, "warm") : offer(url, rate, 5, "warm");
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> ledger.sql("SELECT count(*) FROM ledger_entries")
                                    .query(Long.class)
                                    .single()
                            == warmUp.created());
            pipeline.stampAppendTime(dev.outbox.contract.Topics.PAYMENT_EVENTS);
            long postmaster = pipeline.postgres().postmasterPid();
            double publisherCpu = ProcessStats.cpuSeconds(pipeline.pid(PipelineHarness.Component.RELAY));
            double postgresCpu = ProcessStats.treeCpuSeconds(postmaster);
            Timestamp from = Timestamp.from(Instant.now());
            Load load = viaJdbc ? offer(jdbcPayment, rate, seconds, "run") : offer(url, rate, seconds, "run");
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> ledger.sql("SELECT count(*) FROM ledger_entries")
                                    .query(Long.class)
                                    .single()
                            == warmUp.created() + load.created());
            publisherCpu = ProcessStats.cpuSeconds(pipeline.pid(PipelineHarness.Component.RELAY)) - publisherCpu;
            postgresCpu = ProcessStats.treeCpuSeconds(postmaster) - postgresCpu;

            Map<UUID, long[]> times = new HashMap<>();
            payments.sql("""
                    SELECT p.id, p.created_at, o.published_at FROM payments p JOIN outbox_messages o
                      ON o.aggregate_id = p.id WHERE p.created_at >= :from""")
                    .param("from", from)
                    .query((rs, i) -> times.put(rs.getObject(1, UUID.class), new long[] {
                        micros(rs.getTimestamp(2)), rs.getTimestamp(3) == null ? -1 : micros(rs.getTimestamp(3))
                    }))
                    .list();
            Histogram acknowledged = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            acknowledgedTimes(pipeline).forEach((payment, appended) -> {
                long[] t = times.get(payment);
                if (t != null) {
                    acknowledged.recordValue(Math.max(0, appended - t[0]));
                }
            });
            Histogram relay = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            Histogram consumer = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            Histogram total = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            ledger.sql("SELECT payment_id, created_at FROM ledger_entries")
                    .query((rs, i) -> {
                        long[] t = times.get(rs.getObject(1, UUID.class));
                        if (t != null) {
                            long applied = micros(rs.getTimestamp(2));
                            if (t[1] >= 0) {
                                relay.recordValue(Math.max(0, t[1] - t[0]));
                                consumer.recordValue(Math.max(0, applied - t[1]));
                            }
                            total.recordValue(Math.max(0, applied - t[0]));
                        }
                        return true;
                    })
                    .list();
            String prefix = "end to end, " + mode + (viaJdbc ? " (payments over JDBC, no HTTP)" : "") + ", "
                    + Math.round(load.offered()) + " payments/s: ";
            row(
                    prefix + "commit -> acknowledged by the broker p50 / p99 (ms, its append time)",
                    acknowledged.getValueAtPercentile(50) / 1000.0,
                    Double.NaN,
                    acknowledged.getValueAtPercentile(99) / 1000.0);
            assertThat(acknowledged.getTotalCount())
                    .as("payments found on the topic with the broker's append time, " + mode)
                    .isEqualTo(total.getTotalCount());
            String publisher = pipeline.connectMode() ? "Connect worker" : "relay";
            row(
                    prefix + "CPU-ms per 1,000 payments: " + publisher + " / PostgreSQL",
                    publisherCpu * 1_000_000 / load.created(),
                    Double.NaN,
                    postgresCpu * 1_000_000 / load.created());
            row(prefix + "commit -> ledger p50 (ms)", total.getValueAtPercentile(50) / 1000.0, Double.NaN);
            row(prefix + "commit -> ledger p99 (ms)", total.getValueAtPercentile(99) / 1000.0, Double.NaN);
            row(prefix + "commit -> ledger max (ms)", total.getMaxValue() / 1000.0, Double.NaN);
            if (relay.getTotalCount() == 0) {
                String why = "not measured: only a lease owner (the polling relay) sets published_at";
                remark(prefix + "commit -> published_at p50 / p99 (ms)", why);
                remark(prefix + "published_at -> ledger p50 / p99 (ms)", why);
            } else {
                row(
                        prefix + "commit -> published_at p50 / p99 (ms)",
                        relay.getValueAtPercentile(50) / 1000.0,
                        Double.NaN,
                        relay.getValueAtPercentile(99) / 1000.0);
                row(
                        prefix + "published_at -> ledger p50 / p99 (ms)",
                        consumer.getValueAtPercentile(50) / 1000.0,
                        Double.NaN,
                        consumer.getValueAtPercentile(99) / 1000.0);
            }
            row(
                    prefix + (viaJdbc ? "JDBC" : "HTTP") + " p50 / p99 (ms, from intended send time)",
                    load.latency().getValueAtPercentile(50) / 1000.0,
                    Double.NaN,
                    load.latency().getValueAtPercentile(99) / 1000.0);
            everyPaymentInTheLedgerOnce(pipeline, payments, ledger, mode + (viaJdbc ? "-jdbc" : ""));
            if (viaJdbc) {
                return;
            }
            notes.add(String.format(
                    "end to end (%s): %d payments offered at %d/s after a %d-payment warm-up, %d "
                            + "failed requests, %d measured",
                    mode, load.sent(), rate, warmUp.sent(), load.failures(), total.getTotalCount()));
            for (PipelineHarness.Component c : new PipelineHarness.Component[] {
                PipelineHarness.Component.API, PipelineHarness.Component.RELAY, PipelineHarness.Component.CONSUMER
            }) {
                String name = c == PipelineHarness.Component.RELAY && pipeline.connectMode()
                        ? "connect worker"
                        : c.name().toLowerCase();
                row(
                        "peak RSS (MiB), " + name + ", " + mode + " run, -Xmx384m",
                        ProcessStats.peakRssKib(pipeline.pid(c)) / 1024.0,
                        Double.NaN);
            }
        }
    }

    /**
     * Correctness, never a duration: every payment has exactly one ledger entry, nothing was dead-lettered, and with
     * Connect in the relay's place nothing else published (no published_at set, one slot: the relay's name).
     */
    private void everyPaymentInTheLedgerOnce(
            PipelineHarness pipeline, JdbcClient payments, JdbcClient ledger, String run) throws Exception {
        long paid =
                payments.sql("SELECT count(*) FROM payments").query(Long.class).single();
        long entries = ledger.sql("SELECT count(*) FROM ledger_entries")
                .query(Long.class)
                .single();
        long distinct = ledger.sql("SELECT count(DISTINCT payment_id) FROM ledger_entries")
                .query(Long.class)
                .single();
        long deadLetters =
                pipeline.records(dev.outbox.contract.Topics.deadLetters(dev.outbox.contract.Topics.PAYMENT_EVENTS));
        long onTopic = pipeline.records(dev.outbox.contract.Topics.PAYMENT_EVENTS);
        notes.add(String.format(
                "end to end (%s): %d payments, %d ledger entries (%d payments), %d records on %s, %d dead letters",
                run, paid, entries, distinct, onTopic, dev.outbox.contract.Topics.PAYMENT_EVENTS, deadLetters));
        assertThat(entries).as("ledger entries, " + run).isEqualTo(paid);
        assertThat(distinct).as("payments in the ledger, " + run).isEqualTo(paid);
        assertThat(deadLetters).as("dead letters, " + run).isZero();
        if (pipeline.connectMode()) {
            assertThat(payments.sql("SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL")
                            .query(Long.class)
                            .single())
                    .as("rows marked published: the relay must not run beside Connect")
                    .isZero();
            assertThat(payments.sql("SELECT string_agg(slot_name, ',') FROM pg_replication_slots")
                            .query(String.class)
                            .single())
                    .as("replication slots: Connect's only")
                    .isEqualTo(PipelineHarness.SLOT);
        }
    }

    /**
     * When the broker appended each payment's event (its LogAppendTime, {@link PipelineHarness#stampAppendTime}), by
     * payment id (the record key), in microseconds; the first record where one went out twice.
     */
    private static Map<UUID, Long> acknowledgedTimes(PipelineHarness pipeline) {
        Map<UUID, Long> appended = new HashMap<>();
        dev.outbox.reconcile.TopicScan.toEnd(
                        pipeline.kafkaClient(), dev.outbox.contract.Topics.PAYMENT_EVENTS, Duration.ofSeconds(120))
                .stream()
                .filter(r -> r.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME)
                .forEach(r -> appended.merge(UUID.fromString(r.key()), r.timestamp() * 1000, Math::min));
        return appended;
    }

    record Load(int sent, long created, long failures, double offered, Histogram latency) {}

    /** Fixed-rate POSTs over HTTP. */
    private static Load offer(String url, int rate, int seconds, String keyPrefix) throws Exception {
        HttpClient http = HttpClient.newBuilder()
                .executor(Executors.newFixedThreadPool(8))
                .build();
        return offer(key -> post(http, url, key), rate, seconds, keyPrefix);
    }

    /** Fixed-rate calls; latency from each call's intended start, so a stall is not hidden. */
    private static Load offer(java.util.function.Consumer<String> call, int rate, int seconds, String keyPrefix)
            throws Exception {
        Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
        ExecutorService senders = Executors.newFixedThreadPool(64);
        AtomicLong failures = new AtomicLong();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
        int total = rate * seconds;
        String prefix = keyPrefix + "-" + Long.toHexString(System.nanoTime()) + "-";
        List<Future<?>> sent = new ArrayList<>(total);
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            long intended = start + i * intervalNanos;
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            String key = prefix + i;
            sent.add(senders.submit(() -> {
                try {
                    call.accept(key);
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                }
                synchronized (latency) {
                    latency.recordValue(Math.max(0, (System.nanoTime() - intended) / 1000));
                }
            }));
        }
        for (Future<?> f : sent) {
            f.get();
        }
        double offered = total / seconds(start);
        senders.shutdown();
        return new Load(total, total - failures.get(), failures.get(), offered, latency);
    }

    private static long micros(Timestamp t) {
        Instant i = t.toInstant();
        return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
    }

    /**
     * The API's limits: the same five statements per payment straight over JDBC (no HTTP, no Spring), then the
     * API over HTTP with and without its outbox write, each at full speed with {@code bench.clients} clients.
     */
    private void api() throws Exception {
        int clients = Integer.getInteger("bench.clients", 16);
        int requests = Integer.getInteger("bench.requests", 20_000);
        double jdbc = rawJdbc(migratedPayments(), clients, requests);
        row("api: the same transaction over JDBC, no HTTP, " + clients + " connections (limit)", jdbc, 1.0);
        // a warm-up, then each variant twice, interleaved, so that the JIT's progress does not favour one of them
        apiThroughput(clients, requests / 2, false);
        double without = 0;
        double with = 0;
        for (int round = 0; round < 2; round++) {
            without += apiThroughput(clients, requests, true) / 2;
            with += apiThroughput(clients, requests, false) / 2;
        }
        row("api: POST /payments over HTTP without the outbox write", without, without / jdbc);
        row("api: POST /payments over HTTP with the outbox write", with, with / jdbc);
        notes.add(String.format("api: with the outbox / without = %.2f", with / without));
    }

    private double apiThroughput(int clients, int requests, boolean withoutOutbox) throws Exception {
        String database = migratedPayments();
        SpringApplicationBuilder builder = new SpringApplicationBuilder(PaymentsApplication.class);
        if (withoutOutbox) {
            // the API unchanged; the database drops its outbox rows (the statement still makes its round trip)
            JdbcClient jdbc = EventFixtures.jdbc(database);
            jdbc.sql("CREATE FUNCTION skip_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
                    .update();
            jdbc.sql("CREATE TRIGGER skip_outbox BEFORE INSERT ON outbox_messages FOR EACH ROW "
                            + "EXECUTE FUNCTION skip_outbox()")
                    .update();
        }
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--management.server.port=0",
                "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(database),
                "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                "--spring.datasource.password=" + LocalCredentials.POSTGRES.password(),
                "--spring.datasource.hikari.maximum-pool-size=" + clients));
        java.util.Arrays.stream(System.getProperty("bench.apiArgs", "").split(" "))
                .filter(a -> a.contains("="))
                .forEach(args::add);
        try (ConfigurableApplicationContext api = builder.run(args.toArray(String[]::new))) {
            String url = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port") + "/payments";
            HttpClient http = HttpClient.newBuilder()
                    .executor(Executors.newFixedThreadPool(4))
                    .build();
            String prefix = Long.toHexString(System.nanoTime());
            closedLoop(clients, requests / 4, i -> post(http, url, prefix + "-warm-" + i)); // warm-up
            long t0 = System.nanoTime();
            closedLoop(clients, requests, i -> post(http, url, prefix + "-" + i));
            double rate = requests / seconds(t0);
            long outboxRows = EventFixtures.jdbc(database)
                    .sql("SELECT count(*) FROM outbox_messages")
                    .query(Long.class)
                    .single();
            assertThat(outboxRows).isEqualTo(withoutOutbox ? 0L : requests + requests / 4);
            return rate;
        }
    }

    private static void post(HttpClient http, String url, String key) {
        try {
            HttpResponse<Void> r = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .header("Authorization", "Bearer local-key-client-a")
                            .header("Idempotency-Key", key)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"3.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 201) {
                throw new IllegalStateException("status " + r.statusCode());
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code clients} threads doing {@code total} calls between them, each as soon as its previous one ended. */
    private static void closedLoop(int clients, int total, java.util.function.IntConsumer call) throws Exception {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    call.accept(i);
                }
            }));
        }
        for (Future<?> w : workers) {
            w.get();
        }
        pool.shutdown();
    }

    /** What payments-api does per new payment over JDBC, with its own statements, without HTTP. */
    private static double rawJdbc(String database, int clients, int requests) throws Exception {
        String prefix = Long.toHexString(System.nanoTime());
        try (JdbcPayments payments = new JdbcPayments(SharedInfra.postgres(), database)) {
            closedLoop(clients, requests / 4, i -> payments.write(prefix + "-warm-" + i));
            long t0 = System.nanoTime();
            closedLoop(clients, requests, i -> payments.write(prefix + "-" + i));
            return requests / seconds(t0);
        }
    }

    /**
     * Writes payments with payments-api's own service and statements (idempotency claim, payment, outbox row, stored
     * response, one transaction) over a connection pool: the API without HTTP.
     */
    private static final class JdbcPayments implements AutoCloseable {
        private final com.zaxxer.hikari.HikariDataSource pool;
        private final dev.outbox.payments.payment.BenchmarkPayments payments;

        JdbcPayments(Postgres server, String database) {
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setJdbcUrl(server.jdbcUrl(database));
            config.setUsername(LocalCredentials.POSTGRES.user());
            config.setPassword(LocalCredentials.POSTGRES.password());
            config.setMaximumPoolSize(64);
            this.pool = new com.zaxxer.hikari.HikariDataSource(config);
            this.payments = new dev.outbox.payments.payment.BenchmarkPayments(pool);
        }

        void write(String key) {
            payments.create(key);
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    private void row(String name, double value, double ratio) {
        row(name, value, ratio, Double.NaN);
    }

    /** A row that states why there is no figure, instead of inventing one. */
    private void remark(String name, String text) {
        rows.put(name, new double[] {Double.NaN, Double.NaN, Double.NaN});
        remarks.put(name, text);
        System.out.printf("BENCH %-80s %s%n", name, text);
    }

    /** @param second a second figure of the same row (p99 next to p50), NaN when there is none */
    private void row(String name, double value, double ratio, double second) {
        rows.put(name, new double[] {value, ratio, second});
        System.out.printf(
                "BENCH %-80s %10.1f%s %s%n",
                name,
                value,
                Double.isNaN(second) ? "" : String.format(" / %.1f", second),
                Double.isNaN(ratio) ? "" : String.format("%.2f", ratio));
    }

    private void write() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "benchmark"));
        StringBuilder md = new StringBuilder("| measurement | value | ratio to raw limit |\n| --- | ---: | ---: |\n");
        StringBuilder csv = new StringBuilder("measurement,value,second value,unit,ratio,remark\n");
        StringBuilder svg = new StringBuilder();
        double max = rows.entrySet().stream()
                .filter(e -> unit(e.getKey()).endsWith("/s"))
                .mapToDouble(e -> e.getValue()[0])
                .max()
                .orElse(1);
        int y = 10;
        for (var e : rows.entrySet()) {
            double v = e.getValue()[0];
            double r = e.getValue()[1];
            double second = e.getValue()[2];
            String unit = unit(e.getKey());
            String remark = remarks.get(e.getKey());
            String value = remark != null
                    ? remark
                    : String.format("%.1f%s %s", v, Double.isNaN(second) ? "" : String.format(" / %.1f", second), unit);
            md.append(String.format(
                    "| %s | %s | %s |%n", e.getKey(), value, Double.isNaN(r) ? "" : String.format("%.2f", r)));
            csv.append(String.format(
                    "\"%s\",%s,%s,%s,%s,%s%n",
                    e.getKey(),
                    Double.isNaN(v) ? "" : String.format("%.1f", v),
                    Double.isNaN(second) ? "" : String.format("%.1f", second),
                    unit,
                    Double.isNaN(r) ? "" : String.format("%.3f", r),
                    remark == null ? "" : "\"" + remark + "\""));
            if (!unit.endsWith("/s") || Double.isNaN(v)) {
                continue;
            }
            int width = (int) (600 * v / max);
            svg.append(String.format(
                    "<text x='0' y='%d' font-size='12'>%s</text><rect x='480' y='%d' width='%d' "
                            + "height='14' fill='steelblue'/><text x='%d' y='%d' font-size='12'>%.0f %s</text>%n",
                    y + 11, e.getKey(), y, width, 485 + width, y + 11, v, unit));
            y += 22;
        }
        String notesText = String.join("\n", notes.stream().map(n -> "- " + n).toList());
        Files.writeString(
                dir.resolve("results.md"), "# Benchmark (backlog " + BACKLOG + ")\n\n" + md + "\n" + notesText + "\n");
        Files.writeString(dir.resolve("results.csv"), csv.toString());
        Files.writeString(
                dir.resolve("results.html"),
                "<html><body><h1>Throughput</h1><svg width='1200' " + "height='" + (y + 10) + "'>" + svg + "</svg><pre>"
                        + md + "\n" + notesText + "</pre></body></html>");
        System.out.println(md + "\n" + notesText);
    }

    private static String unit(String measurement) {
        return measurement.contains("(ms")
                ? "ms"
                : measurement.contains("(MiB") ? "MiB" : measurement.startsWith("api") ? "payments/s" : "events/s";
    }

    private static String migratedPayments() {
        return OutboxRows.migratedDatabase();
    }

    /**
     * Writes {@code rows} PaymentCreated events through payments-api's OutboxWriter, in one transaction; returns an
     * instant just before the first, to measure publish spans from.
     */
    private static Instant preload(String database, int rows) {
        Instant before = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        OutboxRows.insert(database, rows, 1);
        return before;
    }

    private static String[] relayArgs(String database, String kafka, String suffix, String mode) {
        return new String[] {
            "--server.port=" + Ports.free(),
            "--relay.mode=" + mode,
            "--relay.db.host=" + SharedInfra.postgres().host(),
            "--relay.db.port=" + SharedInfra.postgres().port(),
            "--relay.db.name=" + database,
            "--relay.kafka.bootstrap-servers=" + kafka,
            "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
            "--relay.cdc.slot-name=slot_" + suffix,
            "--relay.cdc.offsets-topic=offsets-" + suffix
        };
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
        h.add(
                "traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes(StandardCharsets.UTF_8));
        return h;
    }

    /**
     * Watches the relay's own counter of acknowledged events (free for the database) until it reaches
     * {@code total}, then checks every row is marked.
     *
     * @return {@link System#nanoTime()} when the counter reached the total
     */
    private static long awaitDrained(ConfigurableApplicationContext relay, String database, long total) {
        Counter published = relay.getBean(MeterRegistry.class).counter("outbox_relay_published");
        await().atMost(Duration.ofMinutes(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> published.count() >= total);
        long done = System.nanoTime();
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> pending(database) == 0);
        return done;
    }

    private static long pending(String database) {
        return EventFixtures.jdbc(database)
                .sql("SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                .query(Long.class)
                .single();
    }

    /** From the first to the last published_at of the rows that occurred from {@code occurredAt} on (one preload). */
    private static double publishSpanSeconds(String database, Instant occurredAt) {
        return EventFixtures.jdbc(database)
                .sql("""
                SELECT EXTRACT(EPOCH FROM max(published_at) - min(published_at)) FROM outbox_messages
                 WHERE occurred_at >= :occurredAt""")
                .param("occurredAt", Timestamp.from(occurredAt))
                .query(Double.class)
                .single();
    }

    private static boolean slotActive(String database, String slot) {
        return EventFixtures.jdbc(database)
                        .sql("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = :slot")
                        .param("slot", slot)
                        .query(Long.class)
                        .single()
                == 1;
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
