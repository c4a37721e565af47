package dev.outbox.relay;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.outbox.contract.AsyncApiDocument;
import dev.outbox.contract.CloudEventsSdk;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole producing side for real: payments-api over HTTP commits payment + outbox row, the CDC relay tails
 * the WAL through the Outbox Event Router and publishes to a real Kafka broker.
 */
class CdcRelayIntegrationTests {

    static final String SUFFIX = "cdc" + Long.toHexString(System.nanoTime());
    static final String TOPIC = "t-" + SUFFIX + ".payment.events";
    static final JsonMapper JSON = JsonMapper.builder().build();

    static String database;
    static ConfigurableApplicationContext api;
    static ConfigurableApplicationContext relay;
    static String apiUrl;
    static int relayPort;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        database = OutboxRows.migratedDatabase();
        api = new SpringApplicationBuilder(PaymentsApplication.class)
                .run(
                        "--server.port=0",
                        "--management.server.port=0",
                        "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(database),
                        "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                        "--spring.datasource.password=" + LocalCredentials.POSTGRES.password());
        apiUrl = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port");
        try (var admin = org.apache.kafka.clients.admin.Admin.create(
                Map.<String, Object>of("bootstrap.servers", SharedInfra.kafka().bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(TOPIC, 3, (short) 1)
                            .configs(Map.of("max.message.bytes", "65536"))))
                    .all()
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        relayPort = Ports.free();
        Map<String, String> env =
                RelayFixtures.relayEnv(database, SharedInfra.kafka().bootstrapServers(), SUFFIX, relayPort);
        // no heartbeat moves the slot in this class: theSlotConfirmsTheCommitOfEveryTransactionBeforeTheLastPublished
        env.put("RELAY_CDC_HEARTBEAT_INTERVAL", "1h");
        // the slot's health is sampled often enough for exposesSlotHealthAndBacklogMetrics to bracket it
        env.put("RELAY_MONITOR_INTERVAL", "200ms");
        relay = RelayApplication.builder().run(RelayFixtures.asArgs(env));
        RelayFixtures.awaitSlotActive(database, "slot_" + SUFFIX);
    }

    @AfterAll
    static void stop() {
        if (relay != null) {
            relay.close();
        }
        if (api != null) {
            api.close();
        }
    }

    @Test
    void publishesAPaymentWithKeyValueAndHeaders() {
        String traceId = "0af7651916cd43dd8448eb211c80319c";
        HttpResponse<String> created = post(
                "/payments", "{\"amount\":\"25.00\",\"currency\":\"EUR\"}", "00-" + traceId + "-b7ad6b7169203331-01");
        UUID paymentId = UUID.fromString(JSON.readTree(created.body()).get("id").asString());
        UUID eventId = eventIdOf(paymentId);

        // the class's topic also holds other tests' records: read until this event is among them
        List<ConsumerRecord<String, String>> records =
                RelayFixtures.readUntilAll(TOPIC, List.of(eventId.toString()), Duration.ofSeconds(60)).stream()
                        .filter(r -> TopicReader.id(r).equals(eventId.toString()))
                        .toList();
        assertThat(records).as("the payment's event on the topic").isNotEmpty();
        assertThat(records.get(0).key()).isEqualTo(paymentId.toString());

        ConsumerRecord<String, String> record = records.get(0);
        assertThat(TopicReader.id(record)).isEqualTo(eventId.toString());
        assertThat(TopicReader.header(record, MessageHeaders.EVENT_TYPE)).isEqualTo(EventTypes.PAYMENT_CREATED);
        assertThat(TopicReader.header(record, MessageHeaders.SCHEMA_VERSION)).isEqualTo("1");
        assertThat(TopicReader.header(record, MessageHeaders.AGGREGATE_VERSION)).isEqualTo("1");
        assertThat(TopicReader.header(record, MessageHeaders.OCCURRED_AT)).isNotBlank();
        assertThat(TopicReader.header(record, MessageHeaders.TRACEPARENT)).startsWith("00-" + traceId + "-");
        JsonNode value = JSON.readTree(record.value());
        assertThat(value.isObject())
                .as("the value is the JSON payload itself, not an escaped string")
                .isTrue();
        assertThat(value.get("paymentId").asString()).isEqualTo(paymentId.toString());
        assertThat(value.get("amount").asString()).isEqualTo("25.00");
        CloudEventsSdk.assertReadsAsTheEvent(
                record.headers(), record.key(), record.value().getBytes(StandardCharsets.UTF_8));
        assertThat(AsyncApiDocument.read().violationsOffTheChannel("paymentEvents", record))
                .as("what the AsyncAPI document says of the events topic")
                .isEmpty();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RelayFixtures.count(
                                database,
                                "SELECT count(*) FROM outbox_delivery WHERE published AND id = '" + eventId + "'")
                        == 1);
    }

    /**
     * What the relay acknowledged is what the slot lets go of. An event's offset carries the commit position of the
     * transaction before it (PostgreSQL's commit message makes no record), so once a later transaction's events are
     * acknowledged, the slot confirms every earlier transaction's commit: here A, B and C are published one after the
     * other, and the slot then confirms a position past the point between A and B, that is B's commit. Heartbeats,
     * which would move the offset on their own, are off in this class (RELAY_CDC_HEARTBEAT_INTERVAL): the offsets the
     * relay hands the engine for the acknowledged batches are the only way past that point.
     */
    @Test
    void theSlotConfirmsTheCommitOfEveryTransactionBeforeTheLastPublished() throws Exception {
        OutboxRows.insert(database, 100, 1);
        long afterA = RelayFixtures.count(database, "SELECT pg_current_wal_insert_lsn() - '0/0'");
        OutboxRows.insert(database, 100, 1);
        List<OutboxEvent> c = OutboxRows.insert(database, 1, 1);

        RelayFixtures.readUntilAll(TOPIC, OutboxRows.ids(c), Duration.ofSeconds(60));

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> RelayFixtures.count(
                                database,
                                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'slot_" + SUFFIX
                                        + "' AND confirmed_flush_lsn - '0/0' > " + afterA)
                        == 1);
    }

    @Test
    void thousandPaymentsAllArriveInPerAggregateVersionOrder() throws Exception {
        int payments = 1000;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<UUID>> futures = new ArrayList<>();
        for (int i = 0; i < payments; i++) {
            futures.add(pool.submit(() ->
                    UUID.fromString(JSON.readTree(post("/payments", "{\"amount\":\"10.00\",\"currency\":\"EUR\"}", null)
                                    .body())
                            .get("id")
                            .asString())));
        }
        List<UUID> ids = new ArrayList<>();
        for (Future<UUID> f : futures) {
            ids.add(f.get());
        }
        List<Future<?>> refunds = new ArrayList<>();
        for (UUID id : ids.subList(0, 200)) {
            refunds.add(pool.submit(() -> {
                post("/payments/" + id + "/refunds", "{\"amount\":\"4.00\"}", null);
                post("/payments/" + id + "/refunds", "{\"amount\":\"6.00\"}", null);
            }));
        }
        for (Future<?> f : refunds) {
            f.get();
        }
        pool.shutdown();
        Set<UUID> ours = new HashSet<>(ids);
        int expectedEvents = payments + 400;

        Set<String> expectedIds = new HashSet<>();
        try (var c = SharedInfra.postgres().connect(database);
                var s = c.prepareStatement("SELECT id::text FROM outbox_messages WHERE aggregate_id = ANY (?)")) {
            s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            var rs = s.executeQuery();
            while (rs.next()) {
                expectedIds.add(rs.getString(1));
            }
        }
        assertThat(expectedIds).hasSize(expectedEvents);
        List<ConsumerRecord<String, String>> onTopic =
                RelayFixtures.readUntilAll(TOPIC, expectedIds, Duration.ofSeconds(90));

        Map<String, List<Long>> versionsByAggregate = new HashMap<>();
        Set<String> eventIds = new HashSet<>();
        for (ConsumerRecord<String, String> r : onTopic) {
            if (ours.contains(UUID.fromString(r.key()))) {
                eventIds.add(TopicReader.id(r));
                versionsByAggregate
                        .computeIfAbsent(r.key(), k -> new ArrayList<>())
                        .add(Long.parseLong(TopicReader.header(r, MessageHeaders.AGGREGATE_VERSION)));
            }
        }
        assertThat(eventIds).hasSize(expectedEvents);
        assertThat(versionsByAggregate).hasSize(payments);
        versionsByAggregate.values().forEach(v -> assertThat(v).isSorted());
        assertThat(versionsByAggregate.get(ids.get(0).toString())).containsExactly(1L, 2L, 3L);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RelayFixtures.count(
                                database,
                                "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                        == 0);
    }

    @Test
    void deadLettersARecordKafkaRejectsForGoodAndKeepsStreaming() throws Exception {
        byte[] random = new byte[150_000];
        new java.util.Random(7).nextBytes(random);
        String huge = java.util.Base64.getEncoder().encodeToString(random);
        UUID payment = UUID.randomUUID();
        OutboxEvent big = OutboxRows.event(
                payment, 1, OutboxRows.payloadWith(payment, "\"blob\":\"" + huge + "\",\"password\":\"hunter2\""));
        OutboxRows.write(OutboxRows.dataSource(database), List.of(big));
        UUID bigId = big.id();
        HttpResponse<String> after = post("/payments", "{\"amount\":\"1.00\",\"currency\":\"EUR\"}", null);
        UUID afterId =
                eventIdOf(UUID.fromString(JSON.readTree(after.body()).get("id").asString()));

        await().atMost(Duration.ofSeconds(60))
                .until(() -> RelayFixtures.count(
                                        database,
                                        "SELECT count(*) FROM outbox_messages WHERE id = '" + bigId
                                                + "' AND dead_lettered_at IS NOT NULL")
                                == 1
                        && RelayFixtures.count(
                                        database,
                                        "SELECT count(*) FROM outbox_delivery WHERE id = '" + afterId
                                                + "' AND published")
                                == 1);
        try (var c = SharedInfra.postgres().connect(database);
                var s = c.prepareStatement("SELECT last_error FROM outbox_messages WHERE id = ?")) {
            s.setObject(1, bigId);
            var rs = s.executeQuery();
            rs.next();
            assertThat(rs.getString(1))
                    .startsWith("RecordTooLargeException")
                    .hasSizeLessThanOrEqualTo(300)
                    .doesNotContain("hunter2")
                    .doesNotContain(huge.substring(0, 20));
        }
    }

    /**
     * The slot's lag is what it says: WAL written beyond the position the slot confirmed. The health's figure, sampled
     * by the relay between two readings of the test's own, lies between the lag those readings bound. A transaction
     * held open meanwhile keeps the slot's restart position behind while the confirmed one moves on past 100 committed
     * events, so a lag counted from the restart position would be far above the bound.
     */
    @Test
    void exposesSlotHealthAndBacklogMetrics() throws Exception {
        try (var open = SharedInfra.postgres().connect(database)) {
            open.setAutoCommit(false);
            open.createStatement().execute("CREATE TEMP TABLE held (x int); INSERT INTO held VALUES (1)");
            OutboxRows.insert(database, 100, 1);
            await().atMost(Duration.ofSeconds(60)).until(() -> RelayFixtures.pending(database) == 0);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                long[] before = walAndConfirmed();
                JsonNode health = JSON.readTree(
                        get("/actuator/health", LocalCredentials.ADMIN_TOKEN).body());
                long[] after = walAndConfirmed();
                JsonNode slot = health.path("components").path("cdcSlot").path("details");
                assertThat(slot.path("role").asString()).isEqualTo("leader");
                assertThat(slot.path("slotActive").asBoolean()).isTrue();
                assertThat(slot.path("walStatus").asString()).isIn("reserved", "extended");
                assertThat(slot.path("lagBytes").asLong())
                        .as("WAL beyond the confirmed position, sampled between the test's two readings")
                        .isBetween(Math.max(0, before[0] - after[1]), after[0] - before[1]);
            });
            open.rollback();
        }
        String anonymousHealth = get("/actuator/health", null).body();
        assertThat(anonymousHealth).contains("\"status\":\"UP\"").doesNotContain("walStatus", "lagBytes", "slot");
        assertThat(get("/actuator/prometheus", null).statusCode()).isEqualTo(401);
        assertThat(get("/actuator/prometheus", "not-the-admin-token").statusCode())
                .isEqualTo(401);
        String metrics =
                get("/actuator/prometheus", LocalCredentials.ADMIN_TOKEN).body();
        assertThat(metrics)
                .contains(
                        "outbox_cdc_slot_lag_bytes",
                        "outbox_pending ",
                        "outbox_oldest_pending_age_seconds",
                        "outbox_relay_published_total");
    }

    /** The server's WAL position and the slot's confirmed position, as byte offsets. */
    private static long[] walAndConfirmed() {
        try (var c = SharedInfra.postgres().connect(database);
                var s = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,"
                        + " pg_wal_lsn_diff(confirmed_flush_lsn, '0/0')::bigint FROM pg_replication_slots"
                        + " WHERE slot_name = ?")) {
            s.setString(1, "slot_" + SUFFIX);
            var rs = s.executeQuery();
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> get(String path, String adminToken) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relayPort + path));
        if (adminToken != null) {
            request.header("Authorization", "Bearer " + adminToken);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static UUID eventIdOf(UUID paymentId) {
        try (var c = SharedInfra.postgres().connect(database);
                var s = c.prepareStatement("SELECT id FROM outbox_messages WHERE aggregate_id = ?")) {
            s.setObject(1, paymentId);
            var rs = s.executeQuery();
            rs.next();
            return rs.getObject(1, UUID.class);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static HttpResponse<String> post(String path, String body, String traceparent) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(apiUrl + path))
                .header("Authorization", "Bearer local-key-client-a")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (traceparent != null) {
            request.header("traceparent", traceparent);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            return response;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
