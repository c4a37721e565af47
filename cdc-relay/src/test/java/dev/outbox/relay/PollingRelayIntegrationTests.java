package dev.outbox.relay;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.outbox.contract.AsyncApiDocument;
import dev.outbox.contract.CloudEventsSdk;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.security.Spellings;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease-based relay against real PostgreSQL and Kafka. Every claim and every scheduled retry is recorded by
 * a trigger in the database itself, so the assertions read what PostgreSQL saw, not what the relay says.
 */
class PollingRelayIntegrationTests {

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 4})
    void workersNeverClaimARowTwiceUnderAValidLeaseAndPublishEverything(int workers) throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = recordClaims(database);
        String suffix = "poll" + workers + Long.toHexString(System.nanoTime());
        List<OutboxEvent> inserted = OutboxRows.insert(database, 2500, 2);

        try (ConfigurableApplicationContext relay = polling(
                database,
                SharedInfra.kafka().bootstrapServers(),
                suffix,
                "--relay.polling.workers=" + workers,
                "--relay.polling.batch-size=50")) {
            await().atMost(Duration.ofSeconds(120)).until(() -> pending(jdbc) == 0);
        }

        assertThat(jdbc.sql("SELECT count(DISTINCT lock_id) FROM claim_log")
                        .query(Long.class)
                        .single())
                .isEqualTo(workers);
        assertThat(jdbc.sql("""
                SELECT count(*) FROM claim_log a JOIN claim_log b
                  ON a.id = b.id AND a.lock_id <> b.lock_id
                 AND b.claimed_at >= a.claimed_at AND b.claimed_at < a.locked_until""").query(Long.class).single())
                .as("claims of one row overlapping a valid lease")
                .isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM claim_log").query(Long.class).single())
                .isEqualTo(5000);
        Set<String> seen = ids(TopicReader.untilDistinct(
                SharedInfra.kafka().adminClientProperties(),
                "t-" + suffix + ".payment.events",
                5000,
                Duration.ofSeconds(60)));
        assertThat(seen)
                .containsAll(inserted.stream().map(e -> e.id().toString()).toList());
    }

    @Test
    void perAggregateOrderClaimsAndPublishesEachAggregatesVersionsInOrder() throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = recordClaims(database);
        String suffix = "porder" + Long.toHexString(System.nanoTime());
        List<OutboxEvent> inserted = OutboxRows.insert(database, 300, 4);

        try (ConfigurableApplicationContext relay = polling(
                database,
                SharedInfra.kafka().bootstrapServers(),
                suffix,
                "--relay.polling.workers=4",
                "--relay.polling.batch-size=20",
                "--relay.polling.idle-sleep=20ms",
                "--relay.polling.per-aggregate-order=true")) {
            await().atMost(Duration.ofSeconds(120)).until(() -> pending(jdbc) == 0);
        }

        assertThat(jdbc.sql("""
                SELECT count(*) FROM claim_log later JOIN outbox_messages m ON m.id = later.id
                  JOIN claim_log earlier_claim ON earlier_claim.id IN (
                       SELECT e.id FROM outbox_messages e
                        WHERE e.aggregate_id = m.aggregate_id AND e.aggregate_version < m.aggregate_version)
                 WHERE later.claimed_at < earlier_claim.claimed_at""").query(Long.class).single())
                .as("a later version claimed before an earlier one of its aggregate")
                .isZero();
        java.util.Map<String, List<Long>> versions = new java.util.HashMap<>();
        AsyncApiDocument asyncApi = AsyncApiDocument.read();
        for (var r : RelayFixtures.readUntilAll(
                "t-" + suffix + ".payment.events", OutboxRows.ids(inserted), Duration.ofSeconds(60))) {
            versions.computeIfAbsent(r.key(), k -> new ArrayList<>())
                    .add(Long.parseLong(TopicReader.header(r, MessageHeaders.AGGREGATE_VERSION)));
            CloudEventsSdk.assertReadsAsTheEvent(r.headers(), r.key(), r.value().getBytes(StandardCharsets.UTF_8));
            assertThat(asyncApi.violationsOffTheChannel("paymentEvents", r)).isEmpty();
        }
        assertThat(versions).hasSize(300);
        versions.values().forEach(v -> assertThat(v).containsExactly(1L, 2L, 3L, 4L));
    }

    @Test
    void brokerDownGrowsAttemptsRespectsNextAttemptAtAndJitters(@TempDir Path tmp) throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = recordClaims(database);
        String suffix = "pdown" + Long.toHexString(System.nanoTime());
        try (ChildKafka broker = new ChildKafka(Ports.free(), tmp.resolve("data"))
                        .c1Only()
                        .start();
                ConfigurableApplicationContext relay = polling(
                        database,
                        broker.bootstrapServers(),
                        suffix,
                        "--relay.kafka.delivery-timeout=1s",
                        "--relay.polling.lease=4s",
                        "--relay.polling.backoff-base=200ms",
                        "--relay.polling.backoff-cap=2s",
                        "--relay.polling.idle-sleep=50ms")) {
            broker.kill();
            List<OutboxEvent> inserted = OutboxRows.insert(database, 20, 1);

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> jdbc.sql("SELECT min(attempts) FROM outbox_messages")
                                    .query(Integer.class)
                                    .single()
                            >= 3);
            assertThat(jdbc.sql("SELECT count(*) FROM claim_log WHERE claimed_at < due_at")
                            .query(Long.class)
                            .single())
                    .as("claims before next_attempt_at")
                    .isZero();
            List<Long> firstDelays = jdbc.sql("SELECT delay_ms FROM retry_log WHERE attempts = 1")
                    .query(Long.class)
                    .list();
            assertThat(firstDelays).isNotEmpty().allSatisfy(d -> assertThat(d).isBetween(150L, 450L));
            assertThat(firstDelays.stream().distinct().count()).as("jitter").isGreaterThan(1);
            assertThat(jdbc.sql("SELECT count(*) FROM outbox_messages WHERE last_error LIKE 'TimeoutException%'")
                            .query(Long.class)
                            .single())
                    .isPositive();
            assertThat(pending(jdbc)).isEqualTo(20);

            broker.start();

            await().atMost(Duration.ofSeconds(60)).until(() -> pending(jdbc) == 0);
            Set<String> seen = ids(TopicReader.untilDistinct(
                    broker.adminClientProperties(), "t-" + suffix + ".payment.events", 20, Duration.ofSeconds(30)));
            assertThat(seen)
                    .containsAll(inserted.stream().map(e -> e.id().toString()).toList());
        }
    }

    @Test
    void poisonIsDeadLetteredAfterTwelveAttemptsAndRequeuePublishesTheSameId() throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = recordClaims(database);
        String suffix = "ppoison" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String kafka = SharedInfra.kafka().bootstrapServers();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1).configs(Map.of("max.message.bytes", "65536"))))
                    .all()
                    .get();
            UUID poison = insertLarge(database);
            try (ConfigurableApplicationContext relay = polling(
                    database,
                    kafka,
                    suffix,
                    "--relay.polling.backoff-base=5ms",
                    "--relay.polling.backoff-cap=40ms",
                    "--relay.polling.idle-sleep=20ms")) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> jdbc.sql("SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL")
                                        .query(Long.class)
                                        .single()
                                == 1);
                Map<String, Object> row = jdbc.sql(
                                "SELECT attempts, last_error, lock_id FROM outbox_messages WHERE id = :id")
                        .param("id", poison)
                        .query()
                        .singleRow();
                assertThat(row.get("attempts")).isEqualTo(12);
                assertThat(row.get("lock_id")).isNull();
                assertThat((String) row.get("last_error"))
                        .startsWith("RecordTooLargeException")
                        .doesNotContain("hunter2");

                String base = "http://127.0.0.1:" + relay.getEnvironment().getProperty("local.server.port")
                        + "/admin/dead-letters";
                assertThat(call("GET", base, null).statusCode()).isEqualTo(401);
                HttpResponse<String> list = call("GET", base, LocalCredentials.ADMIN_TOKEN);
                assertThat(list.body()).contains(poison.toString(), "<redacted").doesNotContain("hunter2");
                // no spelling of an operator path gets around the token, with none or a client's API key
                int port = Integer.parseInt(relay.getEnvironment().getProperty("local.server.port"));
                for (String[] r : new String[][] {
                    {"GET", "/admin/dead-letters"},
                    {"GET", "/admin/dead-letters/" + poison + "?includePayload=true"},
                    {"POST", "/admin/dead-letters/" + poison + "/requeue"},
                    {"POST", "/admin/dead-letters/requeue?eventType=PaymentCreated"}
                }) {
                    Spellings.assertEveryRefused(port, r[0], r[1], LocalCredentials.CLIENT_A_KEY, null);
                }
                assertThat(jdbc.sql("SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL")
                                .query(Long.class)
                                .single())
                        .as("still dead-lettered: no spelling requeued it")
                        .isEqualTo(1);

                admin.incrementalAlterConfigs(Map.of(
                                new ConfigResource(ConfigResource.Type.TOPIC, topic),
                                List.of(new AlterConfigOp(
                                        new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET))))
                        .all()
                        .get();
                HttpResponse<String> requeued =
                        call("POST", base + "/" + poison + "/requeue", LocalCredentials.ADMIN_TOKEN);
                assertThat(requeued.body()).contains("\"requeued\":1");

                await().atMost(Duration.ofSeconds(60))
                        .until(() -> pending(jdbc) == 0
                                && jdbc.sql("SELECT count(*) FROM outbox_delivery WHERE published")
                                                .query(Long.class)
                                                .single()
                                        == 1);
                assertThat(ids(TopicReader.untilDistinct(
                                SharedInfra.kafka().adminClientProperties(), topic, 1, Duration.ofSeconds(30))))
                        .containsExactly(poison.toString());
            }
        }
    }

    @Test
    void switchingFromCdcToPollingAndBackLosesNothing() throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = jdbc(database);
        String suffix = "switch" + Long.toHexString(System.nanoTime());
        String kafka = SharedInfra.kafka().bootstrapServers();
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        List<OutboxEvent> inserted = new ArrayList<>();

        try (ConfigurableApplicationContext cdc = RelayApplication.builder().run(RelayFixtures.asArgs(env))) {
            RelayFixtures.awaitSlotActive(database, "slot_" + suffix);
            inserted.addAll(OutboxRows.insert(database, 100, 2));
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(jdbc) == 0);
        }
        try (ConfigurableApplicationContext polling = polling(database, kafka, suffix)) {
            inserted.addAll(OutboxRows.insert(database, 100, 2));
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(jdbc) == 0);
        }
        inserted.addAll(OutboxRows.insert(database, 100, 2));
        try (ConfigurableApplicationContext cdc = RelayApplication.builder().run(RelayFixtures.asArgs(env))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(jdbc) == 0);
            inserted.addAll(OutboxRows.insert(database, 100, 2));
            await().atMost(Duration.ofSeconds(60)).until(() -> pending(jdbc) == 0);
        }

        Set<String> seen = ids(RelayFixtures.readUntilAll(
                "t-" + suffix + ".payment.events", OutboxRows.ids(inserted), Duration.ofSeconds(60)));
        assertThat(seen)
                .containsAll(inserted.stream().map(e -> e.id().toString()).toList());
    }

    private static ConfigurableApplicationContext polling(
            String database, String kafka, String suffix, String... extra) {
        Map<String, String> env = RelayFixtures.relayEnv(database, kafka, suffix, Ports.free());
        String[] args = Stream.concat(
                        Stream.of(RelayFixtures.asArgs(env)),
                        Stream.concat(Stream.of("--relay.mode=polling"), Stream.of(extra)))
                .toArray(String[]::new);
        return RelayApplication.builder().run(args);
    }

    /** A trigger that logs every claim (attempts + 1) and every scheduled retry, inside PostgreSQL. */
    private static JdbcClient recordClaims(String database) {
        JdbcClient jdbc = jdbc(database);
        jdbc.sql("""
                CREATE TABLE claim_log (id uuid, lock_id uuid, claimed_at timestamptz, locked_until timestamptz,
                                        due_at timestamptz, attempts int)""").update();
        jdbc.sql("CREATE TABLE retry_log (id uuid, attempts int, delay_ms bigint)")
                .update();
        jdbc.sql("""
                CREATE FUNCTION log_claims() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF NEW.attempts = OLD.attempts + 1 THEN
                    INSERT INTO claim_log VALUES (NEW.id, NEW.lock_id, now(), NEW.locked_until,
                                                  OLD.next_attempt_at, NEW.attempts);
                  ELSIF NEW.lock_id IS NULL AND OLD.lock_id IS NOT NULL AND NEW.published_at IS NULL
                        AND NEW.dead_lettered_at IS NULL THEN
                    INSERT INTO retry_log VALUES (NEW.id, NEW.attempts,
                                                  (EXTRACT(EPOCH FROM NEW.next_attempt_at - now()) * 1000)::bigint);
                  END IF;
                  RETURN NEW;
                END $$""").update();
        jdbc.sql("""
                CREATE TRIGGER log_claims AFTER UPDATE ON outbox_messages
                FOR EACH ROW EXECUTE FUNCTION log_claims()""").update();
        return jdbc;
    }

    private static UUID insertLarge(String database) {
        byte[] random = new byte[150_000];
        new java.util.Random(11).nextBytes(random);
        UUID payment = UUID.randomUUID();
        OutboxEvent large = OutboxRows.event(
                payment,
                1,
                OutboxRows.payloadWith(
                        payment,
                        "\"blob\":\"" + java.util.Base64.getEncoder().encodeToString(random)
                                + "\",\"password\":\"hunter2\""));
        OutboxRows.write(OutboxRows.dataSource(database), List.of(large));
        return large.id();
    }

    private static JdbcClient jdbc(String database) {
        return JdbcClient.create(new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(database),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password()));
    }

    private static long pending(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                .query(Long.class)
                .single();
    }

    private static Set<String> ids(
            Collection<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> records) {
        return records.stream().map(r -> TopicReader.id(r)).collect(Collectors.toSet());
    }

    private static HttpResponse<String> call(String method, String url, String token) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
