package dev.outbox.accounting;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.contract.EventTypes;
import dev.outbox.security.RawHttp;
import dev.outbox.security.Spellings;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.outbox.accounting.EventFixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The consumer against a real broker and a real database: duplicates, gaps, poison and transient failures. */
class AccountingConsumerIntegrationTests {

    static final String TOPIC = "events-" + Long.toHexString(System.nanoTime());
    static final String GROUP = "accounting-" + Long.toHexString(System.nanoTime());
    static String database;
    static JdbcClient jdbc;
    static ConfigurableApplicationContext consumer;
    static KafkaProducer<String, String> producer;

    @BeforeAll
    static void start() {
        EventFixtures.createTopic(TOPIC, 3);
        database = EventFixtures.accountingDatabase();
        jdbc = EventFixtures.jdbc(database);
        consumer = AccountingApplication.builder().run(EventFixtures.consumerArgs(database, TOPIC, GROUP));
        producer = EventFixtures.producer();
    }

    @AfterAll
    static void stop() {
        producer.close();
        consumer.close();
    }

    @Test
    void sameEventFiveTimesAcrossTwoInstancesAndARebalanceAppliesOnce() throws Exception {
        UUID payment = UUID.randomUUID();
        Event created = Event.created(payment, "50.00", "EUR");
        producer.send(record(TOPIC, 0, created)).get();
        producer.send(record(TOPIC, 1, created)).get();
        try (ConfigurableApplicationContext second =
                AccountingApplication.builder().run(EventFixtures.consumerArgs(database, TOPIC, GROUP))) {
            for (int partition = 0; partition < 3; partition++) {
                producer.send(record(TOPIC, partition, created)).get();
            }
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(duplicates(consumer) + duplicates(second))
                            .isGreaterThanOrEqualTo(4));
        }
        assertThat(entries(payment)).isEqualTo(1);
        assertThat(balance(payment)).isEqualByComparingTo("50.00");
        assertThat(jdbc.sql("SELECT count(*) FROM inbox_messages WHERE message_id = :id")
                        .param("id", created.id())
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    @Test
    void versionGapIsHeldBackThenAppliedInOrder() throws Exception {
        UUID payment = UUID.randomUUID();
        producer.send(record(TOPIC, null, Event.created(payment, "100.00", "EUR")))
                .get();
        Event v2 = Event.refunded(payment, 2, "10.00", "EUR");
        Event v3 = Event.refunded(payment, 3, "20.00", "EUR");
        producer.send(record(TOPIC, null, v3)).get();

        await().atMost(Duration.ofSeconds(30)).until(() -> parked(payment) == 1);
        assertThat(versions(payment)).containsExactly(1L);
        assertThat(balance(payment)).isEqualByComparingTo("100.00");

        producer.send(record(TOPIC, null, v2)).get();

        await().atMost(Duration.ofSeconds(30)).until(() -> versions(payment).size() == 3);
        assertThat(versions(payment)).containsExactly(1L, 2L, 3L);
        assertThat(parked(payment)).isZero();
        assertThat(balance(payment)).isEqualByComparingTo("70.00");
    }

    @Test
    void poisonGoesToTheDeadLetterTopicAndThePartitionKeepsFlowing() throws Exception {
        UUID payment = UUID.randomUUID();
        Event good = Event.created(payment, "5.00", "EUR");
        Event garbage = new Event(UUID.randomUUID(), payment, 1, EventTypes.PAYMENT_CREATED, "{not json", null);
        Event unknownType = new Event(UUID.randomUUID(), payment, 1, "PaymentTeleported", good.payload(), null);
        Event badAmount = new Event(
                UUID.randomUUID(),
                payment,
                1,
                EventTypes.PAYMENT_CREATED,
                good.payload().replace("\"5.00\"", "\"1.5\"").replace("EUR", "JPY"),
                null);
        ProducerRecord<String, String> noId =
                new ProducerRecord<>(TOPIC, 0, payment.toString(), good.payload(), new RecordHeaders());
        producer.send(record(TOPIC, 0, garbage)).get();
        producer.send(record(TOPIC, 0, unknownType)).get();
        producer.send(record(TOPIC, 0, badAmount)).get();
        producer.send(noId).get();
        producer.send(record(TOPIC, 0, good)).get();

        await().atMost(Duration.ofSeconds(60)).until(() -> entries(payment) == 1);
        List<ConsumerRecord<String, String>> dlt =
                EventFixtures.read(TOPIC + ".DLT", 4, Duration.ofSeconds(30)).stream()
                        .filter(r -> payment.toString().equals(r.key()))
                        .toList();
        assertThat(dlt).hasSize(4);
        assertThat(dlt).allSatisfy(r -> {
            String reason =
                    new String(r.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8);
            assertThat(reason).startsWith("poison: ").doesNotContain("{not json");
            assertThat(r.headers().lastHeader("kafka_dlt-exception-stacktrace")).isNull();
        });
        assertThat(balance(payment)).isEqualByComparingTo("5.00");
    }

    @Test
    void failureBeforeTheCommitRollsBackMarkerAndEffectThenAppliesOnce() throws Exception {
        jdbc.sql("CREATE TABLE IF NOT EXISTS fail_ledger (payment_id uuid PRIMARY KEY)")
                .update();
        jdbc.sql("CREATE SEQUENCE IF NOT EXISTS fail_attempts").update();
        jdbc.sql("""
                CREATE OR REPLACE FUNCTION fail_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF EXISTS (SELECT 1 FROM fail_ledger WHERE payment_id = NEW.payment_id) THEN
                    PERFORM nextval('fail_attempts');
                    RAISE EXCEPTION 'injected failure before commit' USING ERRCODE = '40001';
                  END IF;
                  RETURN NEW;
                END $$""").update();
        jdbc.sql("""
                CREATE OR REPLACE TRIGGER fail_ledger BEFORE INSERT ON ledger_entries
                FOR EACH ROW EXECUTE FUNCTION fail_ledger()""").update();
        UUID payment = UUID.randomUUID();
        jdbc.sql("INSERT INTO fail_ledger VALUES (:id)").param("id", payment).update();
        Event created = Event.created(payment, "7.00", "EUR");
        long failuresBefore = failedAttempts();

        producer.send(record(TOPIC, null, created)).get();

        await().atMost(Duration.ofSeconds(30)).until(() -> failedAttempts() > failuresBefore + 2);
        assertThat(entries(payment)).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM inbox_messages WHERE message_id = :id")
                        .param("id", created.id())
                        .query(Long.class)
                        .single())
                .as("the marker rolled back with the effect")
                .isZero();

        jdbc.sql("DELETE FROM fail_ledger").update();

        await().atMost(Duration.ofSeconds(60)).until(() -> entries(payment) == 1);
        assertThat(jdbc.sql("SELECT count(*) FROM inbox_messages WHERE message_id = :id")
                        .param("id", created.id())
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
        assertThat(EventFixtures.read(TOPIC + ".DLT", 100, Duration.ofSeconds(3)))
                .noneMatch(r -> payment.toString().equals(r.key()));
    }

    @Test
    void continuesTheProducersTraceAndServesTheLedger() throws Exception {
        UUID payment = UUID.randomUUID();
        String traceId = "5bf92f3577b34da6a3ce929d0e0e4736";
        producer.send(record(
                        TOPIC,
                        null,
                        Event.created(payment, "12.34", "USD")
                                .withTraceparent("00-" + traceId + "-00f067aa0ba902b7-01")))
                .get();

        await().atMost(Duration.ofSeconds(30)).until(() -> entries(payment) == 1);

        assertThat(jdbc.sql("SELECT trace_id FROM ledger_entries WHERE payment_id = :id")
                        .param("id", payment)
                        .query(String.class)
                        .single())
                .isEqualTo(traceId);
        int port = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
        RawHttp.Response response = RawHttp.get(port, "/ledger/payments/" + payment, "local-admin-token");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).contains("\"balance\":\"12.34\"", "\"currency\":\"USD\"", "\"amount\":\"12.34\"");
        assertThat(response.header("cache-control")).contains("no-store");
    }

    @Test
    void theLedgerAnswersOperatorsAndAuditorsOnlyInEverySpelling() throws Exception {
        UUID payment = UUID.randomUUID();
        producer.send(record(TOPIC, null, Event.created(payment, "3.00", "EUR")))
                .get();
        await().atMost(Duration.ofSeconds(30)).until(() -> entries(payment) == 1);
        int port = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
        String path = "/ledger/payments/" + payment;

        for (String token : new String[] {null, "local-key-client-a", "wrong"}) {
            RawHttp.Response refused = RawHttp.get(port, path, token);
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.body())
                    .contains("urn:problem-type:accounting:unauthenticated")
                    .doesNotContain(payment.toString() + "\",\"currency");
        }
        for (String spelling : Spellings.of(path)) {
            RawHttp.Response r = RawHttp.get(port, spelling, null);
            assertThat(r.status()).as(spelling + " " + r).isBetween(400, 499);
            assertThat(r.isProblem()).as(spelling + " " + r).isTrue();
            assertThat(r.body()).as(spelling).doesNotContain("balance");
        }
        assertThat(RawHttp.get(port, path, "auditor-token").body()).contains("\"balance\":\"3.00\"");
        RawHttp.Response unknown = RawHttp.get(port, "/ledger/payments/" + UUID.randomUUID(), "local-admin-token");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        RawHttp.Response garbage = RawHttp.get(port, "/ledger/payments/not-a-uuid", "local-admin-token");
        assertThat(garbage.status()).isEqualTo(400);
        assertThat(garbage.body()).contains("urn:problem-type:http:bad-request").doesNotContain("java.", "UUID");
    }

    @Test
    void aSecondConsumerNameKeepsItsOwnInboxAndEffect() throws Exception {
        UUID payment = UUID.randomUUID();
        Event created = Event.created(payment, "9.00", "EUR");
        try (ConfigurableApplicationContext audit = AccountingApplication.builder()
                .run(EventFixtures.consumerArgs(
                        database, TOPIC, "audit-" + GROUP, "--accounting.consumer-name=audit"))) {
            producer.send(record(TOPIC, null, created)).get();
            producer.send(record(TOPIC, null, created)).get();

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> jdbc.sql("SELECT count(*) FROM inbox_messages WHERE message_id = :id")
                                    .param("id", created.id())
                                    .query(Long.class)
                                    .single()
                            == 2);
        }
        assertThat(jdbc.sql("""
                SELECT consumer_name || ':' || count(*) FROM ledger_entries WHERE payment_id = :id
                 GROUP BY consumer_name ORDER BY consumer_name""").param("id", payment).query(String.class).list())
                .containsExactly("accounting:1", "audit:1");
    }

    private static double duplicates(ConfigurableApplicationContext context) {
        var c = context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                .find("accounting_events")
                .tag("outcome", "duplicate")
                .counter();
        return c == null ? 0 : c.count();
    }

    private static long failedAttempts() {
        return jdbc.sql("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM fail_attempts")
                .query(Long.class)
                .single();
    }

    private static long entries(UUID payment) {
        return jdbc.sql("SELECT count(*) FROM ledger_entries WHERE consumer_name = 'accounting' AND payment_id = :id")
                .param("id", payment)
                .query(Long.class)
                .single();
    }

    private static long parked(UUID payment) {
        return jdbc.sql("SELECT count(*) FROM parked_events WHERE payment_id = :id")
                .param("id", payment)
                .query(Long.class)
                .single();
    }

    private static List<Long> versions(UUID payment) {
        return jdbc.sql(
                        "SELECT aggregate_version FROM ledger_entries WHERE consumer_name = 'accounting' AND payment_id = :id ORDER BY id")
                .param("id", payment)
                .query(Long.class)
                .list();
    }

    private static BigDecimal balance(UUID payment) {
        return jdbc.sql(
                        "SELECT COALESCE(sum(amount), 0) FROM ledger_entries WHERE consumer_name = 'accounting' AND payment_id = :id")
                .param("id", payment)
                .query(BigDecimal.class)
                .single();
    }
}
