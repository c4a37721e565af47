package dev.outbox.accounting;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.contract.AsyncApiDocument;
import dev.outbox.contract.CloudEventHeaders;
import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.contract.EventTypes;
import dev.outbox.local.LocalCredentials;
import dev.outbox.security.RawHttp;
import dev.outbox.security.Spellings;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

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

    /**
     * Two instances of the consumer, each with its three listener threads (the default concurrency), on a topic of
     * six partitions of its own and a group of its own: copies 1 and 2 go to the first instance while it is alone
     * (copy 1 applied, copy 2 a duplicate); the second instance joins and the test waits for the group's final
     * generation, in which each of the six members holds one partition; copies 3 and 5 then go to partitions of the
     * second instance and copy 4 to one of the first. Each instance's outcome counters show which copies it handled,
     * and the ledger has one entry. (On the shared three-partition topic the second instance's three members could
     * join without getting a partition: the assignor owes them none.)
     */
    @Test
    void sameEventFiveTimesAcrossTwoInstancesAndARebalanceAppliesOnce() throws Exception {
        String topic = "dup-" + Long.toHexString(System.nanoTime());
        String group = "accounting-dup-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 6);
        Set<TopicPartition> all = IntStream.range(0, 6)
                .mapToObj(p -> new TopicPartition(topic, p))
                .collect(Collectors.toSet());
        UUID payment = UUID.randomUUID();
        Event created = Event.created(payment, "50.00", "EUR");
        try (ConfigurableApplicationContext first =
                AccountingApplication.builder().run(EventFixtures.consumerArgs(database, topic, group))) {
            // the first instance's three threads all joined: two partitions each
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> byClient(first).size() == 3
                            && byClient(first).values().stream().allMatch(p -> p.size() == 2)
                            && assigned(first).equals(all));
            producer.send(record(topic, 0, created)).get();
            producer.send(record(topic, 1, created)).get();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> outcomes(first, "applied") + outcomes(first, "duplicate") >= 2);
            assertHandled(first, "copies 1 and 2, the first instance alone", 1, 1);

            try (ConfigurableApplicationContext second =
                    AccountingApplication.builder().run(EventFixtures.consumerArgs(database, topic, group))) {
                // the final generation: all six members (three threads of each instance) hold one partition each
                await().atMost(Duration.ofSeconds(90)).until(() -> {
                    Map<String, Collection<TopicPartition>> members = new HashMap<>(byClient(first));
                    members.putAll(byClient(second));
                    return members.size() == 6
                            && members.values().stream().allMatch(p -> p.size() == 1)
                            && members.values().stream()
                                    .flatMap(Collection::stream)
                                    .collect(Collectors.toSet())
                                    .equals(all);
                });
                Set<TopicPartition> ofFirst = assigned(first);
                Set<TopicPartition> ofSecond = assigned(second);
                assertThat(ofFirst)
                        .as("the rebalance moved partitions away from the first instance")
                        .hasSize(3);
                assertThat(ofSecond).as("... to the second").hasSize(3).doesNotContainAnyElementsOf(ofFirst);
                List<TopicPartition> secondsPartitions =
                        ofSecond.stream().sorted(PARTITION_ORDER).toList();
                TopicPartition firstsPartition =
                        ofFirst.stream().sorted(PARTITION_ORDER).findFirst().orElseThrow();

                producer.send(record(topic, secondsPartitions.get(0).partition(), created))
                        .get();
                producer.send(record(topic, firstsPartition.partition(), created))
                        .get();
                producer.send(record(topic, secondsPartitions.get(1).partition(), created))
                        .get();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> outcomes(first, "duplicate") + outcomes(second, "duplicate") >= 4);

                assertThat(assigned(first)).as("no further rebalance").isEqualTo(ofFirst);
                assertThat(assigned(second)).as("no further rebalance").isEqualTo(ofSecond);
                assertHandled(first, "copies 1, 2 and 4 reached the first instance", 1, 2);
                assertHandled(second, "copies 3 and 5 reached the second instance", 0, 2);
                System.out.printf(
                        "rebalance: first instance %s, second %s; outcomes first applied=%.0f duplicate=%.0f,"
                                + " second applied=%.0f duplicate=%.0f%n",
                        partitions(ofFirst),
                        partitions(ofSecond),
                        outcomes(first, "applied"),
                        outcomes(first, "duplicate"),
                        outcomes(second, "applied"),
                        outcomes(second, "duplicate"));
            }
        }
        assertThat(entries(payment)).isEqualTo(1);
        assertThat(balance(payment)).isEqualByComparingTo("50.00");
        assertThat(jdbc.sql("SELECT count(*) FROM inbox_messages WHERE message_id = :id")
                        .param("id", created.id())
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparingInt(TopicPartition::partition);

    private static MessageListenerContainer container(ConfigurableApplicationContext context) {
        return context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("accounting");
    }

    /** The partitions an instance's listener threads hold now. */
    private static Set<TopicPartition> assigned(ConfigurableApplicationContext context) {
        Collection<TopicPartition> partitions = container(context).getAssignedPartitions();
        return partitions == null ? Set.of() : Set.copyOf(partitions);
    }

    /** Each listener thread's (consumer client's) partitions, for the threads that hold any. */
    private static Map<String, Collection<TopicPartition>> byClient(ConfigurableApplicationContext context) {
        Map<String, Collection<TopicPartition>> byClient = container(context).getAssignmentsByClientId();
        Map<String, Collection<TopicPartition>> holding = new HashMap<>();
        if (byClient != null) {
            byClient.forEach((client, partitions) -> {
                if (partitions != null && !partitions.isEmpty()) {
                    holding.put(client, List.copyOf(partitions));
                }
            });
        }
        return holding;
    }

    private static List<Integer> partitions(Set<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).sorted().toList();
    }

    /** The copies an instance applied and those it found already applied, from its own counters. */
    private static void assertHandled(
            ConfigurableApplicationContext context, String copies, int applied, int duplicates) {
        assertThat(outcomes(context, "applied")).as(copies + ": applied").isEqualTo(applied);
        assertThat(outcomes(context, "duplicate")).as(copies + ": duplicates").isEqualTo(duplicates);
    }

    private static double outcomes(ConfigurableApplicationContext context, String outcome) {
        var c = context.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                .find("accounting_events")
                .tag("outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
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
        // a producer's bug the schema catches: occurredAt written as epoch seconds
        Event numericTime = new Event(
                UUID.randomUUID(),
                payment,
                1,
                EventTypes.PAYMENT_CREATED,
                good.payload().replace("\"2026-12-02T10:00:00Z\"", "1796205600"),
                null);
        ProducerRecord<String, String> noId =
                new ProducerRecord<>(TOPIC, 0, payment.toString(), good.payload(), new RecordHeaders());
        // the CloudEvents headers say another type than the envelope: a dead letter, not a guess which is right
        ProducerRecord<String, String> typesDisagree = record(TOPIC, 0, Event.created(payment, "5.00", "EUR"));
        typesDisagree.headers().remove(CloudEventHeaders.TYPE);
        typesDisagree
                .headers()
                .add(CloudEventHeaders.TYPE, EventTypes.PAYMENT_REFUNDED.getBytes(StandardCharsets.UTF_8));
        producer.send(record(TOPIC, 0, garbage)).get();
        producer.send(record(TOPIC, 0, unknownType)).get();
        producer.send(record(TOPIC, 0, badAmount)).get();
        producer.send(record(TOPIC, 0, numericTime)).get();
        producer.send(noId).get();
        producer.send(typesDisagree).get();
        producer.send(record(TOPIC, 0, good)).get();

        await().atMost(Duration.ofSeconds(60)).until(() -> entries(payment) == 1);
        List<ConsumerRecord<String, String>> dlt =
                EventFixtures.read(TOPIC + ".DLT", 6, Duration.ofSeconds(30)).stream()
                        .filter(r -> payment.toString().equals(r.key()))
                        .toList();
        assertThat(dlt).hasSize(6);
        AsyncApiDocument asyncApi = AsyncApiDocument.read();
        for (ConsumerRecord<String, String> r : dlt) {
            // what the consumer writes to its dead-letter topic is what the AsyncAPI document says (this test's
            // topic standing for the channel's address)
            assertThat(asyncApi.violationsOffTheChannel("paymentEventDeadLetters", r))
                    .isEmpty();
        }
        assertThat(dlt).allSatisfy(r -> {
            assertThat(r.headers().lastHeader("kafka_dlt-exception-stacktrace")).isNull();
        });
        assertThat(dlt.stream()
                        .map(r -> new String(
                                r.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                        .toList())
                .containsExactly(
                        "poison: payload is not valid JSON",
                        "poison: unknown event type or schema version: PaymentTeleported v1",
                        "poison: amount is not a valid JPY amount",
                        "poison: breaks schema PaymentCreated v1: /occurredAt: type",
                        "poison: missing id header",
                        "poison: ce_type header disagrees with the event_type header");
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
        RawHttp.Response response = RawHttp.get(port, "/ledger/payments/" + payment, LocalCredentials.ADMIN_TOKEN);
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

        for (String token : new String[] {null, LocalCredentials.CLIENT_A_KEY, "wrong"}) {
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
        RawHttp.Response unknown =
                RawHttp.get(port, "/ledger/payments/" + UUID.randomUUID(), LocalCredentials.ADMIN_TOKEN);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        RawHttp.Response garbage = RawHttp.get(port, "/ledger/payments/not-a-uuid", LocalCredentials.ADMIN_TOKEN);
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
