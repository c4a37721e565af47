package dev.outbox.accounting;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.local.LocalCredentials;
import dev.outbox.security.RawHttp;
import dev.outbox.security.Spellings;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.header.Header;
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
 * The consumer's dead letters as an operator handles them, on a real broker and database: a record that failed is
 * listed and inspected (payload redacted unless asked), replayed while the cause persists (it returns with its
 * history), replayed after the fix (applied once), and replayed again to no effect; only the admin token gets in.
 */
class DeadLetterAdminIntegrationTests {

    static final String TOPIC = "events-" + Long.toHexString(System.nanoTime());
    static final String DLT = TOPIC + ".DLT";
    static final String TOKEN = LocalCredentials.ADMIN_TOKEN;
    static final JsonMapper JSON = JsonMapper.builder().build();
    static JdbcClient jdbc;
    static ConfigurableApplicationContext consumer;
    static KafkaProducer<String, String> producer;
    static int port;

    @BeforeAll
    static void start() {
        EventFixtures.createTopic(TOPIC, 3);
        EventFixtures.createTopic(DLT, 3);
        String database = EventFixtures.accountingDatabase();
        jdbc = EventFixtures.jdbc(database);
        consumer = AccountingApplication.builder()
                .run(EventFixtures.consumerArgs(
                        database,
                        TOPIC,
                        "accounting-" + Long.toHexString(System.nanoTime()),
                        "--accounting.max-attempts=2"));
        producer = EventFixtures.producer();
        port = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
        // a failure that is neither poison nor the database being down: what an operator fixes, then replays
        jdbc.sql("CREATE TABLE refuse_ledger (payment_id uuid PRIMARY KEY)").update();
        jdbc.sql("""
                CREATE FUNCTION refuse_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF EXISTS (SELECT 1 FROM refuse_ledger WHERE payment_id = NEW.payment_id) THEN
                    RAISE EXCEPTION 'refused by a test rule' USING ERRCODE = '23514';
                  END IF;
                  RETURN NEW;
                END $$""").update();
        jdbc.sql("""
                CREATE TRIGGER refuse_ledger BEFORE INSERT ON ledger_entries
                FOR EACH ROW EXECUTE FUNCTION refuse_ledger()""").update();
    }

    @AfterAll
    static void stop() {
        producer.close();
        consumer.close();
    }

    @Test
    void aFailedRecordIsListedRedactedReplayedWithItsHistoryAndAppliedOnceAfterTheFix() throws Exception {
        UUID payment = UUID.randomUUID();
        refuse(payment);
        Event created = Event.created(payment, "40.00", "EUR");
        producer.send(record(TOPIC, null, created)).get();

        Instant asked = Instant.now();
        JsonNode first = await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(created.id(), "reason=PSQLException"), l -> l.size() == 1)
                .get(0);
        Instant answered = Instant.now();
        assertThat(first.path("eventType").asText()).isEqualTo(EventTypes.PAYMENT_CREATED);
        assertThat(first.path("paymentId").asText()).isEqualTo(payment.toString());
        assertThat(first.path("aggregateVersion").asText()).isEqualTo("1");
        assertThat(first.path("originalTopic").asText()).isEqualTo(TOPIC);
        assertThat(first.path("originalOffset").isNumber()).isTrue();
        Instant deadLetteredAt = Instant.parse(first.path("deadLetteredAt").asText());
        assertThat(first.path("ageSeconds").asLong())
                .as("seconds since the record was dead-lettered, when the list was read")
                .isBetween(
                        Math.max(0, Duration.between(deadLetteredAt, asked).toSeconds() - 1),
                        Duration.between(deadLetteredAt, answered).toSeconds() + 1);
        // and it grows with time: three seconds after the dead-lettering, it says so
        await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(deadLetteredAt.plusSeconds(3)));
        assertThat(deadLettersOf(created.id(), "reason=PSQLException")
                        .get(0)
                        .path("ageSeconds")
                        .asLong())
                .isGreaterThanOrEqualTo(3);
        assertThat(first.path("history")).isEmpty();
        assertThat(first.path("replayed").isNull()).isTrue();
        assertThat(first.path("payload").asText()).startsWith("<redacted");
        String at = "/admin/dead-letters/" + first.path("partition").asInt() + "/"
                + first.path("offset").asLong();
        RawHttp.Response redacted = RawHttp.get(port, at, TOKEN);
        assertThat(redacted.status()).isEqualTo(200);
        assertThat(redacted.body()).doesNotContain("40.00").contains("redacted");
        assertThat(RawHttp.get(port, at + "?includePayload=true", TOKEN).body())
                .contains("\\\"amount\\\":\\\"40.00\\\"");
        assertThat(deadLettersOf(created.id(), "eventType=" + EventTypes.PAYMENT_REFUNDED))
                .isEmpty();
        assertThat(deadLettersOf(created.id(), "reason=poison")).isEmpty();
        assertThat(deadLettersOf(created.id(), "after=" + Instant.now().plusSeconds(3600)))
                .isEmpty();
        assertThat(deadLettersOf(created.id(), "before=" + Instant.now().minusSeconds(3600)))
                .isEmpty();

        // replayed while the cause persists: back in the dead-letter topic, with its history
        assertThat(post(at + "/replay")).isEqualTo(Map.of("replayed", 1, "alreadyReplayed", 0));
        JsonNode second = await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(created.id(), null), l -> l.size() == 2)
                .get(1);
        assertThat(second.path("history")).hasSize(1);
        assertThat(second.path("history").get(0).asText())
                .startsWith(DLT + "-" + first.path("partition").asInt() + "@"
                        + first.path("offset").asLong() + " from " + TOPIC + "-")
                .endsWith(": PSQLException");
        assertThat(deadLettersOf(created.id(), null)
                        .get(0)
                        .path("replayed")
                        .path("by")
                        .asText())
                .isEqualTo("admin");
        assertThat(entries(payment)).isZero();

        // fixed, replayed through the command line: applied once
        jdbc.sql("DELETE FROM refuse_ledger WHERE payment_id = :id")
                .param("id", payment)
                .update();
        String secondAt =
                second.path("partition").asInt() + "@" + second.path("offset").asLong();
        assertThat(cli("dlt", "show", secondAt)).contains("reason           PSQLException", "earlier          " + DLT);
        assertThat(cli("dlt", "show", secondAt, "--payload")).contains("\"amount\":\"40.00\"");
        assertThat(cli("dlt", "replay", secondAt)).contains("replayed 1, already replayed before 0");
        await().atMost(Duration.ofSeconds(60)).until(() -> entries(payment) == 1);
        assertThat(balance(payment)).isEqualByComparingTo("40.00");

        // replaying either record again publishes nothing
        assertThat(cli("dlt", "replay", secondAt)).contains("replayed 0, already replayed before 1");
        assertThat(post(at + "/replay")).isEqualTo(Map.of("replayed", 0, "alreadyReplayed", 1));
        List<ConsumerRecord<String, String>> onTopic =
                withId(EventFixtures.read(TOPIC, 1, Duration.ofSeconds(10)), created.id());
        assertThat(onTopic).as("the original and two replays").hasSize(3);
        assertThat(onTopic).allSatisfy(r -> {
            assertThat(r.key()).isEqualTo(payment.toString());
            assertThat(r.headers().lastHeader(DeadLetterHeaders.REASON)).isNull();
            assertThat(header(r, MessageHeaders.EVENT_TYPE)).isEqualTo(EventTypes.PAYMENT_CREATED);
        });
        assertThat(onTopic.get(2).headers().headers(DeadLetterHeaders.HISTORY)).hasSize(2);
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replays WHERE event_id = :id")
                        .param("id", created.id())
                        .query(Long.class)
                        .single())
                .isEqualTo(2);
        assertThat(cli("dlt", "list", "--reason", "PSQLException")).contains("REPLAYED by admin");
        assertThat(deadLettersOf(created.id(), null)).hasSize(2);
        assertThat(entries(payment)).isEqualTo(1);
    }

    @Test
    void aSelectionIsReplayedOnceAndPoisonReturnsToTheDeadLetterTopic() throws Exception {
        UUID refused = UUID.randomUUID();
        refuse(refused);
        Event created = Event.created(refused, "7.00", "EUR");
        Event refunded = Event.refunded(refused, 2, "2.00", "EUR");
        UUID poisoned = UUID.randomUUID();
        Event poison = new Event(UUID.randomUUID(), poisoned, 1, EventTypes.PAYMENT_CREATED, "{not json", null);
        producer.send(record(TOPIC, null, created)).get();
        producer.send(record(TOPIC, null, poison)).get();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(created.id(), null).size() == 1
                        && deadLettersOf(poison.id(), null).size() == 1);
        producer.send(record(TOPIC, null, refunded)).get();
        await().atMost(Duration.ofSeconds(60)).until(() -> parked(refused) == 1);

        jdbc.sql("DELETE FROM refuse_ledger WHERE payment_id = :id")
                .param("id", refused)
                .update();
        String selection = "/admin/dead-letters/replay?reason=PSQLException&after="
                + Instant.now().minusSeconds(600);
        Map<String, Object> firstRun = post(selection);
        assertThat(firstRun.get("replayed")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(60)).until(() -> entries(refused) == 2);
        assertThat(balance(refused)).isEqualByComparingTo("5.00");
        // records of the other test may match the selection too: they were replayed before
        assertThat(post(selection))
                .isEqualTo(Map.of(
                        "replayed",
                        0,
                        "alreadyReplayed",
                        (Integer) firstRun.get("replayed") + (Integer) firstRun.get("alreadyReplayed")));

        assertThat(cli("dlt", "replay", "--reason", "poison", "--type", EventTypes.PAYMENT_CREATED))
                .contains("replayed 1, already replayed before 0");
        List<JsonNode> poisonLetters = await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(poison.id(), "reason=poison"), l -> l.size() == 2);
        assertThat(poisonLetters.get(1).path("history")).hasSize(1);
        assertThat(poisonLetters.get(1).path("history").get(0).asText()).endsWith("poison: payload is not valid JSON");
        assertThat(entries(poisoned)).isZero();
        assertThat(entries(refused)).isEqualTo(2);
    }

    /**
     * Failure groups, and a dry run whose set the replay then takes exactly (refunds, so that the other tests'
     * selections of created payments do not meet these): a dead letter of the group that arrives
     * between the two makes the replay refuse (nothing replayed, nothing audited); narrowed to the dry run's moment it
     * replays the dry run's set, audited with who, the selection and the digest.
     */
    @Test
    void groupsAndADryRunWhoseSetTheReplayTakesExactly() throws Exception {
        Instant start = Instant.now().minusSeconds(1);
        String cause = "poison: payload is not valid JSON";
        Event first = new Event(UUID.randomUUID(), UUID.randomUUID(), 2, EventTypes.PAYMENT_REFUNDED, "{not", null);
        Event second = new Event(UUID.randomUUID(), UUID.randomUUID(), 2, EventTypes.PAYMENT_REFUNDED, "{no", null);
        producer.send(record(TOPIC, null, first)).get();
        producer.send(record(TOPIC, null, second)).get();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(first.id(), null).size() == 1
                        && deadLettersOf(second.id(), null).size() == 1);

        RawHttp.Response groups = RawHttp.get(port, "/admin/dead-letters/groups", TOKEN);
        assertThat(groups.status()).as(groups.toString()).isEqualTo(200);
        JsonNode poisonGroup = null;
        for (JsonNode g : JSON.readTree(groups.body())) {
            if (g.path("cause").asText().equals(cause)
                    && g.path("eventType").asText().equals(EventTypes.PAYMENT_REFUNDED)) {
                poisonGroup = g;
            }
        }
        assertThat(poisonGroup).as(groups.body()).isNotNull();
        assertThat(poisonGroup.path("causeClass").asText()).isEqualTo("poison");
        assertThat(poisonGroup.path("deadLetters").asLong()).isGreaterThanOrEqualTo(2);

        String selection = "cause=" + encode(cause) + "&eventType=PaymentRefunded&after=" + encode(start.toString());
        assertThat(deadLettersOf(first.id(), selection)).hasSize(1);
        long replaysBefore =
                jdbc.sql("SELECT count(*) FROM dlt_replays").query(Long.class).single();
        long requestsBefore = jdbc.sql("SELECT count(*) FROM dlt_replay_requests")
                .query(Long.class)
                .single();
        @SuppressWarnings("unchecked")
        Map<String, Object> dryRun = post("/admin/dead-letters/replay?dryRun=true&" + selection);
        assertThat(dryRun.get("deadLetters")).isEqualTo(2);
        assertThat((List<?>) dryRun.get("first")).hasSize(2);
        String digest = (String) dryRun.get("digest");
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replays")
                        .query(Long.class)
                        .single())
                .as("a dry run replays nothing")
                .isEqualTo(replaysBefore);
        assertThat(cli(
                        "dlt",
                        "replay",
                        "--cause",
                        cause,
                        "--type",
                        EventTypes.PAYMENT_REFUNDED,
                        "--after",
                        start.toString(),
                        "--dry-run"))
                .as("the command line's dry run: the same set")
                .contains("would replay 2 dead letters")
                .contains("--expect " + digest);
        assertThat(cli("dlt", "groups")).contains("poison  PaymentRefunded").contains("cause: " + cause);

        Event third = new Event(UUID.randomUUID(), UUID.randomUUID(), 2, EventTypes.PAYMENT_REFUNDED, "{x", null);
        producer.send(record(TOPIC, null, third)).get();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(third.id(), null).size() == 1);
        RawHttp.Response changed =
                send("POST", "/admin/dead-letters/replay?expect=" + digest + "&" + selection, null, TOKEN);
        assertProblem(changed, 409, "accounting:selection-changed");
        assertThat(changed.body()).contains("3 dead letters now");
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replays")
                        .query(Long.class)
                        .single())
                .isEqualTo(replaysBefore);
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replay_requests")
                        .query(Long.class)
                        .single())
                .isEqualTo(requestsBefore);

        String asOf = encode((String) dryRun.get("asOf"));
        assertThat(post("/admin/dead-letters/replay?expect=" + digest + "&before=" + asOf + "&" + selection))
                .isEqualTo(Map.of("replayed", 2, "alreadyReplayed", 0));
        RawHttp.Response requests = RawHttp.get(port, "/admin/dead-letters/replays", TOKEN);
        JsonNode latest = JSON.readTree(requests.body()).get(0);
        assertThat(latest.path("requestedBy").asText()).isEqualTo("admin");
        assertThat(latest.path("deadLetters").asLong()).isEqualTo(2);
        assertThat(latest.path("replayed").asInt()).isEqualTo(2);
        assertThat(latest.path("digest").asText()).isEqualTo(digest);
        assertThat(latest.path("selection").asText()).contains("cause=" + cause);
        assertThat(cli("dlt", "replays"))
                .contains("by admin: 2 taken, 2 replayed, 0 replayed before (digest " + digest);
        // the poison went back to the dead-letter topic; the one after the dry run was never replayed
        await().atMost(Duration.ofSeconds(60))
                .until(() -> deadLettersOf(first.id(), null).size() == 2);
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replays WHERE event_id = :id")
                        .param("id", third.id())
                        .query(Long.class)
                        .single())
                .isZero();
    }

    @Test
    void onlyTheAdminTokenReachesTheOperationsAndBadInputIsAProblem() {
        String payment = UUID.randomUUID().toString();
        String skip = "{\"fromVersion\":2,\"toVersion\":2,\"operator\":\"mallory\",\"reason\":\"x\"}";
        List<String[]> requests = List.of(
                new String[] {"GET", "/admin/dead-letters", null},
                new String[] {"GET", "/admin/dead-letters/0/0?includePayload=true", null},
                new String[] {"POST", "/admin/dead-letters/0/0/replay", null},
                new String[] {"POST", "/admin/dead-letters/replay?all=true", null},
                new String[] {"POST", "/admin/dead-letters/replay?all=true&dryRun=true", null},
                new String[] {"GET", "/admin/dead-letters/groups", null},
                new String[] {"GET", "/admin/dead-letters/replays", null},
                new String[] {"GET", "/admin/parked", null},
                new String[] {"GET", "/admin/gap-resolutions", null},
                new String[] {"POST", "/admin/parked/" + payment + "/skip", skip});
        long replaysBefore =
                jdbc.sql("SELECT count(*) FROM dlt_replays").query(Long.class).single();
        for (String[] r : requests) {
            for (String token : new String[] {null, "wrong", LocalCredentials.CLIENT_A_KEY, "auditor-token"}) {
                RawHttp.Response refused = send(r[0], r[1], r[2], token);
                assertThat(refused.status()).as(r[1] + " with " + token).isEqualTo(401);
                assertThat(refused.body()).as(r[1]).contains("urn:problem-type:admin:unauthenticated");
            }
        }
        // and no spelling of a path gets around the rule, with no token or a client's API key
        long skipsBefore = jdbc.sql("SELECT count(*) FROM gap_resolutions")
                .query(Long.class)
                .single();
        for (String[] r : requests) {
            Spellings.assertEveryRefused(port, r[0], r[1], LocalCredentials.CLIENT_A_KEY, r[2]);
        }
        assertThat(jdbc.sql("SELECT count(*) FROM dlt_replays")
                        .query(Long.class)
                        .single())
                .as("no replay recorded")
                .isEqualTo(replaysBefore);
        assertThat(jdbc.sql("SELECT count(*) FROM gap_resolutions")
                        .query(Long.class)
                        .single())
                .as("no gap skipped")
                .isEqualTo(skipsBefore);

        assertProblem(send("GET", "/admin/dead-letters?after=yesterday", null, TOKEN), 400, "http:bad-request");
        assertProblem(
                send("GET", "/admin/dead-letters?reason=" + "x".repeat(101), null, TOKEN),
                400,
                "accounting:invalid-request");
        assertProblem(send("GET", "/admin/dead-letters?reason=%20x", null, TOKEN), 400, "accounting:invalid-request");
        assertProblem(
                send("GET", "/admin/dead-letters?eventType=%3Cscript%3E", null, TOKEN),
                400,
                "accounting:invalid-request");
        assertProblem(send("GET", "/admin/dead-letters/0/99999999", null, TOKEN), 404, "accounting:not-found");
        assertProblem(send("POST", "/admin/dead-letters/replay", null, TOKEN), 400, "accounting:invalid-request");
        assertProblem(
                send("POST", "/admin/dead-letters/replay?all=true&reason=x", null, TOKEN),
                400,
                "accounting:invalid-request");
        assertProblem(send("POST", "/admin/dead-letters/0/99999999/replay", null, TOKEN), 404, "accounting:not-found");
        assertProblem(
                send("POST", "/admin/dead-letters/replay?all=true&expect=x", null, TOKEN),
                400,
                "accounting:invalid-request");
        assertProblem(
                send("GET", "/admin/dead-letters?cause=" + encode("a\nb"), null, TOKEN),
                400,
                "accounting:invalid-request");
        assertProblem(send("POST", "/admin/parked/not-a-uuid/skip", skip, TOKEN), 400, "http:bad-request");
        assertProblem(send("POST", "/admin/parked/" + payment + "/skip", skip, TOKEN), 404, "accounting:not-found");
        assertProblem(
                send("POST", "/admin/parked/" + payment + "/skip", "{\"fromVersion\":2", TOKEN),
                400,
                "http:bad-request");
        RawHttp.Response noOperator = send(
                "POST",
                "/admin/parked/" + payment + "/skip",
                "{\"fromVersion\":2,\"toVersion\":2,\"reason\":\"x\"}",
                TOKEN);
        assertProblem(noOperator, 400, "accounting:invalid-request");
        assertThat(noOperator.body()).contains("operator is required");
        assertProblem(
                send("POST", "/admin/parked/" + payment + "/skip", skip.replace("\"x\"", "\"x\\ny\""), TOKEN),
                400,
                "accounting:invalid-request");
        assertThat(cli("dlt", "show", "0@99999999", "--token", "wrong")).contains("401");
    }

    private static void assertProblem(RawHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.toString()).isTrue();
        assertThat(response.body()).contains("urn:problem-type:" + type).doesNotContain("java.", "Exception:");
    }

    private static String encode(String value) {
        return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static void refuse(UUID payment) {
        jdbc.sql("INSERT INTO refuse_ledger VALUES (:id)").param("id", payment).update();
    }

    /** The dead letters of one event id, oldest first, as the list endpoint answers them (with a query, or not). */
    private static List<JsonNode> deadLettersOf(UUID eventId, String query) {
        RawHttp.Response response =
                RawHttp.get(port, "/admin/dead-letters" + (query == null ? "" : "?" + query), TOKEN);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode d : JSON.readTree(response.body())) {
            if (eventId.toString().equals(d.path("eventId").asText())) {
                found.add(d);
            }
        }
        return found;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> post(String path) {
        RawHttp.Response response = send("POST", path, null, TOKEN);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return JSON.readValue(response.body(), Map.class);
    }

    private static RawHttp.Response send(String method, String path, String body, String token) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        }
        if (body != null) {
            headers.put("Content-Type", "application/json");
        }
        return RawHttp.send(port, method, path, headers, body);
    }

    /** What the command line prints, standard output and error together. */
    static String cli(int port, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        OperatorCli.run(List.of(args), Map.of("ACCOUNTING_ADMIN_URL", "http://127.0.0.1:" + port), print, print);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String cli(String... args) {
        return cli(port, args);
    }

    private static List<ConsumerRecord<String, String>> withId(List<ConsumerRecord<String, String>> records, UUID id) {
        return records.stream()
                .filter(r -> id.toString().equals(header(r, MessageHeaders.ID)))
                .toList();
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static long entries(UUID payment) {
        return jdbc.sql("SELECT count(*) FROM ledger_entries WHERE payment_id = :id")
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

    private static BigDecimal balance(UUID payment) {
        return jdbc.sql("SELECT COALESCE(sum(amount), 0) FROM ledger_entries WHERE payment_id = :id")
                .param("id", payment)
                .query(BigDecimal.class)
                .single();
    }
}
