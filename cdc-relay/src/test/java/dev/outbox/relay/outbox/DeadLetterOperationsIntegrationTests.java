package dev.outbox.relay.outbox;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.outbox.contract.EventTypes;
import dev.outbox.contract.TimeOrderedIds;
import dev.outbox.local.LocalCredentials;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.relay.RelayFixtures;
import dev.outbox.security.FailureCause;
import dev.outbox.security.Spellings;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay's dead-letter operations, over HTTP with the admin token as an operator sends them: failure groups,
 * filtered lists, a dry run whose set the requeue then takes exactly (or nothing, when the set changed), the audit of
 * requeues; and every one of them refused without the token, changing nothing.
 */
class DeadLetterOperationsIntegrationTests {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String TOO_LARGE = "RecordTooLargeException: The message is %d bytes when serialized which is larger"
            + " than 1048576, which is the value of the max.request.size configuration.";
    static final String TOO_LARGE_CAUSE = "RecordTooLargeException: The message is <n> bytes when serialized which is"
            + " larger than <n>, which is the value of the max.request.size configuration.";
    static final String UNKNOWN = "InvalidTopicException: Topic for event %s is not valid";
    static final String UNKNOWN_CAUSE = "InvalidTopicException: Topic for event <uuid> is not valid";

    final HttpClient http = HttpClient.newHttpClient();

    @Test
    void groupsFiltersAndADryRunWhoseSetTheRequeueTakesExactly() throws Exception {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(database),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password()));
        for (int i = 0; i < 3; i++) {
            deadLettered(jdbc, 1, TOO_LARGE.formatted(1_048_600 + i * 1000));
        }
        deadLettered(jdbc, 2, TOO_LARGE.formatted(2_000_000));
        UUID unknown = deadLettered(jdbc, 1, UNKNOWN.formatted(UUID.randomUUID()));
        deadLettered(jdbc, 1, UNKNOWN.formatted(UUID.randomUUID()));
        String suffix = "dlops" + Long.toHexString(System.nanoTime());
        int port = Ports.free();
        try (ConfigurableApplicationContext relay = RelayApplication.builder()
                .run(java.util.stream.Stream.concat(
                                java.util.Arrays.stream(RelayFixtures.asArgs(RelayFixtures.relayEnv(
                                        database, SharedInfra.kafka().bootstrapServers(), suffix, port))),
                                java.util.stream.Stream.of("--relay.mode=polling"))
                        .toArray(String[]::new))) {
            String base = "http://127.0.0.1:" + port + "/admin/dead-letters";

            JsonNode groups = JSON.readTree(call("GET", base + "/groups", 200).body());
            assertThat(groups).hasSize(3);
            assertThat(groups.get(0).get("causeClass").asString()).isEqualTo("RecordTooLargeException");
            assertThat(groups.get(0).get("cause").asString()).isEqualTo(TOO_LARGE_CAUSE);
            assertThat(groups.get(0).get("eventType").asString()).isEqualTo(EventTypes.PAYMENT_CREATED);
            assertThat(groups.get(0).get("deadLetters").asLong()).isEqualTo(3);
            assertThat(groups.get(0).get("firstSeen").asString())
                    .isLessThan(groups.get(0).get("lastSeen").asString());
            assertThat(groups.get(1).get("cause").asString()).isEqualTo(UNKNOWN_CAUSE);
            assertThat(groups.get(1).get("deadLetters").asLong()).isEqualTo(2);
            assertThat(groups.get(2).get("cause").asString()).isEqualTo(TOO_LARGE_CAUSE);
            assertThat(groups.get(2).get("eventType").asString()).isEqualTo(EventTypes.PAYMENT_REFUNDED);
            assertThat(groups.get(2).get("deadLetters").asLong()).isEqualTo(1);

            String tooLargeCreated = "?cause=" + encode(TOO_LARGE_CAUSE) + "&eventType=PaymentCreated";
            assertThat(JSON.readTree(call("GET", base + tooLargeCreated, 200).body()))
                    .hasSize(3);
            assertThat(JSON.readTree(call("GET", base + "?reason=InvalidTopicException", 200)
                            .body()))
                    .hasSize(2);
            assertThat(JSON.readTree(call("GET", base + "?eventType=PaymentRefunded", 200)
                            .body()))
                    .singleElement()
                    .satisfies(d -> assertThat(d.get("payload").asString()).startsWith("<redacted"));

            // the dry run: which set, nothing changed
            JsonNode dryRun = JSON.readTree(call("POST", base + "/requeue" + tooLargeCreated + "&dryRun=true", 200)
                    .body());
            assertThat(dryRun.get("dryRun").asBoolean()).isTrue();
            assertThat(dryRun.get("deadLetters").asLong()).isEqualTo(3);
            assertThat(dryRun.get("requeued").asInt()).isZero();
            assertThat(dryRun.get("first")).hasSize(3);
            assertThat(deadLetters(jdbc)).isEqualTo(6);
            String digest = dryRun.get("digest").asString();

            // a dead letter of the same group arrives: the dry run's set is not the selection's any more
            deadLettered(jdbc, 1, TOO_LARGE.formatted(1_100_000));
            HttpResponse<String> changed = call("POST", base + "/requeue" + tooLargeCreated + "&expect=" + digest, 409);
            assertThat(changed.body()).contains("4 dead letters now").contains("nothing was requeued");
            assertThat(deadLetters(jdbc)).isEqualTo(7);
            assertThat(JSON.readTree(call("GET", base + "/requeues", 200).body()))
                    .as("nothing requeued, nothing audited")
                    .isEmpty();

            // narrowed to the dry run's moment: the same set again, requeued exactly
            String asOf = encode(dryRun.get("asOf").asString());
            JsonNode requeued = JSON.readTree(
                    call("POST", base + "/requeue" + tooLargeCreated + "&before=" + asOf + "&expect=" + digest, 200)
                            .body());
            assertThat(requeued.get("dryRun").asBoolean()).isFalse();
            assertThat(requeued.get("requeued").asInt()).isEqualTo(3);
            assertThat(requeued.get("digest").asString()).isEqualTo(digest);
            assertThat(deadLetters(jdbc)).isEqualTo(4);
            assertThat(JSON.readTree(call("GET", base + tooLargeCreated, 200).body()))
                    .as("the one that came after the dry run is still there")
                    .hasSize(1);

            JsonNode audit = JSON.readTree(call("GET", base + "/requeues", 200).body());
            assertThat(audit).hasSize(1);
            assertThat(audit.get(0).get("requestedBy").asString()).isEqualTo("admin");
            assertThat(audit.get(0).get("requeued").asInt()).isEqualTo(3);
            assertThat(audit.get(0).get("digest").asString()).isEqualTo(digest);
            assertThat(audit.get(0).get("selection").asString()).contains("eventType=PaymentCreated");

            // one by id, audited too; an empty selection needs all=true, and all=true no selection
            assertThat(JSON.readTree(call("POST", base + "/" + unknown + "/requeue", 200)
                                    .body())
                            .get("requeued")
                            .asInt())
                    .isEqualTo(1);
            assertThat(call("POST", base + "/requeue", 400).body()).contains("all=true");
            assertThat(call("POST", base + "/requeue?all=true&eventType=PaymentCreated", 400)
                            .body())
                    .contains("without a selection");
            call("POST", base + "/requeue?cause=" + encode("a\nb"), 400);
            call("POST", base + "/requeue?all=true&expect=not-a-digest", 400);
            call("GET", base + "?after=2026-12-06T00:00:00Z&before=2026-12-05T00:00:00Z", 400);
            assertThat(JSON.readTree(call("GET", base + "/requeues", 200).body()))
                    .hasSize(2);
            assertThat(deadLetters(jdbc)).isEqualTo(3);

            // without the admin token, in any spelling, with or without a client's key: refused, nothing changes
            for (String[] r : new String[][] {
                {"GET", "/admin/dead-letters/groups"},
                {"GET", "/admin/dead-letters/requeues"},
                {"GET", "/admin/dead-letters?eventType=PaymentCreated"},
                {"POST", "/admin/dead-letters/requeue?all=true&dryRun=true"},
                {"POST", "/admin/dead-letters/requeue?all=true"}
            }) {
                Spellings.assertEveryRefused(port, r[0], r[1], LocalCredentials.CLIENT_A_KEY, null);
            }
            assertThat(deadLetters(jdbc)).isEqualTo(3);
            assertThat(JSON.readTree(call("GET", base + "/requeues", 200).body()))
                    .hasSize(2);
        }
    }

    /** The relay groups in SQL (V7's outbox_failure_shape), the consumer in Java (FailureCause): the same causes. */
    @Test
    void theDatabasesFailureShapeIsTheConsumers() {
        JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(OutboxRows.migratedDatabase()),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password()));
        for (String reason : new String[] {
            TOO_LARGE.formatted(1_048_677),
            UNKNOWN.formatted("01A24205-d4ba-73ee-934d-b9c83dead5a3"),
            "poison: breaks schema PaymentCreated v1: /amount: pattern",
            "TimeoutException",
            "",
            "x 12-34 5f6a7b8c-0000-1111-2222-333344445555f 007"
        }) {
            assertThat(jdbc.sql("SELECT outbox_failure_shape(:reason)")
                            .param("reason", reason)
                            .query(String.class)
                            .single())
                    .as(reason)
                    .isEqualTo(FailureCause.of(reason));
        }
    }

    /** A row as the relay leaves one it gave up on: dead-lettered with its sanitized reason, in one statement. */
    private static UUID deadLettered(JdbcClient jdbc, long version, String reason) {
        UUID id = TimeOrderedIds.next();
        UUID payment = TimeOrderedIds.next();
        jdbc.sql("""
                        INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                                     schema_version, payload, occurred_at, attempts, last_error,
                                                     dead_lettered_at)
                        VALUES (:id, :aggregateType, :payment, :version, :eventType, 1, CAST(:payload AS jsonb), now(),
                                12, :reason, clock_timestamp())""")
                .param("id", id)
                .param("aggregateType", EventTypes.PAYMENT)
                .param("payment", payment)
                .param("version", version)
                .param("eventType", version == 1 ? EventTypes.PAYMENT_CREATED : EventTypes.PAYMENT_REFUNDED)
                .param("payload", OutboxRows.payload(payment, version, "1.00"))
                .param("reason", reason)
                .update();
        return id;
    }

    private static long deadLetters(JdbcClient jdbc) {
        return jdbc.sql("SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL")
                .query(Long.class)
                .single();
    }

    private HttpResponse<String> call(String method, String url, int expected) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .header("Authorization", "Bearer " + LocalCredentials.ADMIN_TOKEN)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as(method + " " + url + ": " + response.body())
                .isEqualTo(expected);
        return response;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
