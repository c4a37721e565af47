package dev.outbox.accounting;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.local.LocalCredentials;
import dev.outbox.security.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static dev.outbox.accounting.EventFixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Events parked behind a version gap that will never fill, as an operator resolves it on a real broker and
 * database: listed with their age and the missing version, skipped only as listed, with who and why in an audit
 * row, the parked events then applied in order, the metric updated, and the skipped version ignored if it comes.
 */
class ParkedAdminIntegrationTests {

    static final String TOPIC = "events-" + Long.toHexString(System.nanoTime());
    static final String TOKEN = LocalCredentials.ADMIN_TOKEN;
    static final JsonMapper JSON = JsonMapper.builder().build();
    static JdbcClient jdbc;
    static ConfigurableApplicationContext consumer;
    static KafkaProducer<String, String> producer;
    static int port;

    @BeforeAll
    static void start() {
        EventFixtures.createTopic(TOPIC, 3);
        String database = EventFixtures.accountingDatabase();
        jdbc = EventFixtures.jdbc(database);
        consumer = AccountingApplication.builder()
                .run(EventFixtures.consumerArgs(database, TOPIC, "accounting-" + Long.toHexString(System.nanoTime())));
        producer = EventFixtures.producer();
        port = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        producer.close();
        consumer.close();
    }

    @Test
    void aGapThatWillNeverFillIsSkippedAsListedWithAnAuditRowAndTheParkedEventsApplied() throws Exception {
        UUID payment = UUID.randomUUID();
        Event v2 = Event.refunded(payment, 2, "10.00", "EUR");
        producer.send(record(TOPIC, null, Event.created(payment, "100.00", "EUR")))
                .get();
        producer.send(record(TOPIC, null, Event.refunded(payment, 3, "20.00", "EUR")))
                .get();
        producer.send(record(TOPIC, null, Event.refunded(payment, 4, "5.00", "EUR")))
                .get();

        JsonNode listed = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> parked(payment),
                        p -> p != null
                                && p.path("events").size() == 2
                                && p.path("oldestAgeSeconds").asLong() >= 1);
        assertThat(listed.path("lastAppliedVersion").asLong()).isEqualTo(1);
        assertThat(listed.path("missingFrom").asLong()).isEqualTo(2);
        assertThat(listed.path("missingTo").asLong()).isEqualTo(2);
        assertThat(listed.path("events").get(0).path("version").asLong()).isEqualTo(3);
        assertThat(listed.path("events").get(1).path("version").asLong()).isEqualTo(4);
        assertThat(listed.path("events").get(0).path("ageSeconds").asLong()).isPositive();
        assertThat(DeadLetterAdminIntegrationTests.cli(port, "parked", "list", "--payment", payment.toString()))
                .contains(
                        "payment " + payment + "  last applied v1  missing v2..v2", "v3 PaymentRefunded", "v4 Payment");
        long elsewhere = parkedElsewhere(payment); // another test's unappliable event may wait too
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("accounting_parked_events") == 2 + elsewhere);

        double skippedBefore = counter("accounting_gap_versions_skipped");
        RawHttp.Response notAsListed = skip(
                payment, "{\"fromVersion\":2,\"toVersion\":3,\"operator\":\"alice\"," + "\"reason\":\"wrong range\"}");
        assertThat(notAsListed.status()).as(notAsListed.toString()).isEqualTo(409);
        assertThat(notAsListed.body())
                .contains("urn:problem-type:accounting:gap-changed", "The payment's gap is versions 2 to 2");
        assertThat(jdbc.sql("SELECT count(*) FROM parked_events WHERE payment_id = :id")
                        .param("id", payment)
                        .query(Long.class)
                        .single())
                .isEqualTo(2);

        String output = DeadLetterAdminIntegrationTests.cli(
                port,
                "parked",
                "skip",
                payment.toString(),
                "--from",
                "2",
                "--to",
                "2",
                "--operator",
                "alice",
                "--reason",
                "v2 was never emitted (INC-42)");
        assertThat(output).contains("skipped v2..v2 of payment " + payment + "; 2 parked events applied");
        assertThat(gauge("accounting_parked_events"))
                .as("refreshed by the skip itself")
                .isEqualTo(elsewhere);
        assertThat(versions(payment)).containsExactly(1L, 3L, 4L);
        assertThat(balance(payment)).isEqualByComparingTo("75.00");
        assertThat(parked(payment)).isNull();
        assertThat(jdbc.sql("""
                        SELECT skipped_from || '..' || skipped_to || ' ' || applied || ' ' || operator || ' '
                               || principal || ' ' || reason
                          FROM gap_resolutions WHERE payment_id = :id""").param("id", payment).query(String.class).list())
                .containsExactly("2..2 2 alice admin v2 was never emitted (INC-42)");
        assertThat(DeadLetterAdminIntegrationTests.cli(port, "parked", "audit", "--payment", payment.toString()))
                .contains("skipped v2..v2  2 parked applied  by alice (admin): v2 was never emitted (INC-42)");
        assertThat(counter("accounting_gap_versions_skipped")).isEqualTo(skippedBefore + 1);

        double stale = outcome("stale");
        producer.send(record(TOPIC, null, v2)).get();
        await().atMost(Duration.ofSeconds(30)).until(() -> outcome("stale") > stale);
        assertThat(versions(payment)).containsExactly(1L, 3L, 4L);
        assertThat(balance(payment)).isEqualByComparingTo("75.00");
        assertThat(skip(payment, "{\"fromVersion\":2,\"toVersion\":2,\"operator\":\"alice\",\"reason\":\"again\"}")
                        .status())
                .isEqualTo(404);
    }

    @Test
    void aPaymentWhoseFirstVersionNeverCameIsSkippedToItsParkedRefund() throws Exception {
        UUID payment = UUID.randomUUID();
        producer.send(record(TOPIC, null, Event.refunded(payment, 2, "3.00", "USD")))
                .get();
        JsonNode listed = await().atMost(Duration.ofSeconds(60)).until(() -> parked(payment), p -> p != null);
        assertThat(listed.path("lastAppliedVersion").asLong()).isZero();
        assertThat(listed.path("missingFrom").asLong()).isEqualTo(1);
        assertThat(listed.path("missingTo").asLong()).isEqualTo(1);

        RawHttp.Response skipped = skip(
                payment,
                "{\"fromVersion\":1,\"toVersion\":1,\"operator\":\"bob\",\"reason\":\"created before the cut-over\"}");
        assertThat(skipped.status()).as(skipped.toString()).isEqualTo(200);
        assertThat(JSON.readTree(skipped.body()).path("applied").asInt()).isEqualTo(1);
        assertThat(versions(payment)).containsExactly(2L);
        assertThat(balance(payment)).isEqualByComparingTo("-3.00");
    }

    @Test
    void aSkipWhoseParkedEventCannotBeAppliedChangesNothing() throws Exception {
        UUID payment = UUID.randomUUID();
        producer.send(record(TOPIC, null, Event.created(payment, "10.00", "EUR")))
                .get();
        producer.send(record(TOPIC, null, Event.refunded(payment, 3, "1.00", "USD")))
                .get();
        await().atMost(Duration.ofSeconds(60)).until(() -> parked(payment) != null);

        RawHttp.Response refused =
                skip(payment, "{\"fromVersion\":2,\"toVersion\":2,\"operator\":\"carol\",\"reason\":\"lost\"}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        assertThat(refused.body())
                .contains("urn:problem-type:accounting:parked-event-unappliable", "refund currency differs")
                .doesNotContain("1.00");
        assertThat(parked(payment).path("missingFrom").asLong()).isEqualTo(2);
        assertThat(versions(payment)).containsExactly(1L);
        assertThat(jdbc.sql("SELECT count(*) FROM gap_resolutions WHERE payment_id = :id")
                        .param("id", payment)
                        .query(Long.class)
                        .single())
                .isZero();
    }

    private static long parkedElsewhere(UUID payment) {
        return jdbc.sql("SELECT count(*) FROM parked_events WHERE payment_id <> :id")
                .param("id", payment)
                .query(Long.class)
                .single();
    }

    private static RawHttp.Response skip(UUID payment, String body) {
        return RawHttp.send(
                port,
                "POST",
                "/admin/parked/" + payment + "/skip",
                Map.of("Authorization", "Bearer " + TOKEN, "Content-Type", "application/json"),
                body);
    }

    /** The payment's entry in the parked list, or null. */
    private static JsonNode parked(UUID payment) {
        RawHttp.Response response = RawHttp.get(port, "/admin/parked?paymentId=" + payment, TOKEN);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        JsonNode list = JSON.readTree(response.body());
        return list.isEmpty() ? null : list.get(0);
    }

    private static double gauge(String name) {
        return consumer.getBean(MeterRegistry.class).get(name).gauge().value();
    }

    private static double counter(String name) {
        return consumer.getBean(MeterRegistry.class).get(name).counter().count();
    }

    private static double outcome(String outcome) {
        return consumer.getBean(MeterRegistry.class)
                .get("accounting_events")
                .tag("outcome", outcome)
                .counter()
                .count();
    }

    private static List<Long> versions(UUID payment) {
        return jdbc.sql(
                        "SELECT aggregate_version FROM ledger_entries WHERE payment_id = :id ORDER BY aggregate_version")
                .param("id", payment)
                .query(Long.class)
                .list();
    }

    private static BigDecimal balance(UUID payment) {
        return jdbc.sql("SELECT COALESCE(sum(amount), 0) FROM ledger_entries WHERE payment_id = :id")
                .param("id", payment)
                .query(BigDecimal.class)
                .single();
    }
}
