package dev.outbox.payments;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.outbox.security.RawHttp;
import dev.outbox.security.Spellings;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A few thousand random and mutated requests (bodies, headers, keys, paths): every answer is a 2xx or an RFC 9457
 * problem without internals, and the tables stay consistent: one outbox event per payment and per refund, one
 * idempotency record per created resource, every event telling the amount its row holds, every payment's refunded
 * total the sum of its refunds. Requests go out raw, paths in every attacker spelling included.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FuzzIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    static final List<String> SEEDS = List.of(
            "{\"amount\":\"10.00\",\"currency\":\"EUR\"}",
            "{\"amount\":\"5\",\"currency\":\"JPY\",\"description\":\"x\"}",
            "{\"amount\":\"1.234\",\"currency\":\"BHD\"}",
            "{\"amount\":\"2.50\"}");

    static final List<String> NASTY = List.of(
            "",
            "null",
            "[]",
            "{}",
            "\"\"",
            "{\"amount\":",
            "1e309",
            "-0",
            "\"\\u0000\"",
            "{\"amount\":{\"$gt\":0}}",
            "{\"amount\":\"NaN\",\"currency\":\"EUR\"}",
            "{\"amount\":\"Infinity\",\"currency\":\"EUR\"}",
            "{\"amount\":1,\"currency\":\"EUR\",\"id\":1}",
            "{\"amount\":\"9".repeat(1) + "9".repeat(500) + "\",\"currency\":\"EUR\"}",
            "'; DROP TABLE payments; --",
            "{\"amount\":1,\"currency\":\"EUR\",\"version\":99,\"status\":\"REFUNDED\"}");

    /** Every attacker spelling of the API's paths; sent raw, so no client library normalizes them first. */
    static final List<String> PATH_SPELLINGS = java.util.stream.Stream.of(
                    "/payments", "/payments/00000000-0000-0000-0000-000000000000/refunds")
            .flatMap(p -> Spellings.of(p).stream())
            .filter(p -> !p.contains("#"))
            .toList();

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    JsonMapper json;

    @Test
    void everyAnswerIsASuccessOrAProblemAndTheTablesStayConsistent() throws Exception {
        Random random = new Random(20261202);
        List<String> keys = List.of("k1", "k2", "k3", "k4", "k5");
        int successes = 0;
        int spelling = 0;
        java.util.Set<String> spellingsSent = new java.util.HashSet<>();
        for (int i = 0; i < 3000; i++) {
            String body = random.nextInt(4) == 0
                    ? NASTY.get(random.nextInt(NASTY.size()))
                    : mutate(SEEDS.get(random.nextInt(SEEDS.size())), random);
            String path = switch (random.nextInt(7)) {
                case 0 -> "/payments/" + existingPaymentOrGarbage(random) + "/refunds";
                case 1 -> "/payments/%2e%2e/refunds";
                case 2 -> PATH_SPELLINGS.get(spelling++ % PATH_SPELLINGS.size());
                default -> "/payments";
            };
            spellingsSent.add(path);
            Map<String, String> headers = new LinkedHashMap<>();
            if (random.nextInt(10) > 0) {
                headers.put(
                        "Authorization",
                        "Bearer "
                                + (random.nextInt(2) == 0
                                        ? ApiClient.CLIENT_A_KEY
                                        : random.nextInt(3) == 0 ? "wrong" : ApiClient.CLIENT_B_KEY));
            }
            if (random.nextInt(10) > 0) {
                headers.put(
                        "Idempotency-Key",
                        random.nextInt(5) == 0
                                ? garbageKey(random)
                                : keys.get(random.nextInt(keys.size())) + "-" + random.nextInt(200));
            }
            headers.put("Content-Type", random.nextInt(8) == 0 ? "text/plain" : "application/json");
            RawHttp.Response response = RawHttp.send(port, "POST", path, headers, body);
            int status = response.status();
            if (status / 100 == 2) {
                successes++;
                continue;
            }
            assertThat(status).as(path + " " + body).isBetween(400, 499);
            assertThat(response.isProblem())
                    .as(status + " " + path + " " + body)
                    .isTrue();
            JsonNode problem = json.readTree(response.body());
            assertThat(problem.get("status").asInt()).isEqualTo(status);
            assertThat(response.body())
                    .doesNotContainIgnoringCase("exception")
                    .doesNotContainIgnoringCase("select ")
                    .doesNotContain("at dev.outbox")
                    .doesNotContain("DROP TABLE");
        }
        assertThat(successes).isPositive();
        assertThat(spellingsSent).as("every attacker spelling was sent").containsAll(PATH_SPELLINGS);
        assertThat(count("""
                SELECT count(*) FROM payments p
                  LEFT JOIN (SELECT aggregate_id, count(*) AS n FROM outbox_messages
                              WHERE event_type = 'PaymentCreated' GROUP BY aggregate_id) e ON e.aggregate_id = p.id
                  LEFT JOIN (SELECT resource_id, count(*) AS n FROM idempotency_keys GROUP BY resource_id) k
                         ON k.resource_id = p.id
                 WHERE e.n IS DISTINCT FROM 1 OR k.n IS DISTINCT FROM 1"""))
                .as("payments without exactly one creation event and one key")
                .isZero();
        assertThat(count("""
                SELECT count(*) FROM refunds r
                  LEFT JOIN (SELECT payload ->> 'refundId' AS refund, count(*) AS n FROM outbox_messages
                              GROUP BY payload ->> 'refundId') e ON e.refund = CAST(r.id AS text)
                  LEFT JOIN (SELECT resource_id, count(*) AS n FROM idempotency_keys GROUP BY resource_id) k
                         ON k.resource_id = r.id
                 WHERE e.n IS DISTINCT FROM 1 OR k.n IS DISTINCT FROM 1"""))
                .as("refunds without exactly one event and one key")
                .isZero();
        assertThat(count("SELECT count(*) FROM payments") + count("SELECT count(*) FROM refunds"))
                .isEqualTo(count("SELECT count(*) FROM outbox_messages"))
                .isEqualTo(count("SELECT count(*) FROM idempotency_keys"));
        assertThat(count("""
                SELECT count(*) FROM payments p JOIN outbox_messages o
                    ON o.aggregate_id = p.id AND o.event_type = 'PaymentCreated'
                 WHERE CAST(o.payload ->> 'amount' AS numeric) <> p.amount
                    OR o.payload ->> 'currency' <> p.currency""")).as("events that tell another amount").isZero();
        assertThat(count("""
                SELECT count(*) FROM refunds r JOIN outbox_messages o
                    ON o.aggregate_id = r.payment_id AND o.payload ->> 'refundId' = CAST(r.id AS text)
                 WHERE CAST(o.payload ->> 'amount' AS numeric) <> r.amount""")).as("refund events").isZero();
        assertThat(count("""
                SELECT count(*) FROM payments p
                 WHERE p.refunded_amount <> COALESCE((SELECT sum(r.amount) FROM refunds r WHERE r.payment_id = p.id), 0)
                    OR p.version <> 1 + (SELECT count(*) FROM refunds r WHERE r.payment_id = p.id)""")).isZero();
    }

    private String existingPaymentOrGarbage(Random random) {
        if (random.nextInt(4) == 0) {
            return "not-a-uuid";
        }
        return jdbc.sql("SELECT id::text FROM payments ORDER BY random() LIMIT 1")
                .query(String.class)
                .optional()
                .orElse("00000000-0000-0000-0000-000000000000");
    }

    private static String mutate(String seed, Random random) {
        StringBuilder s = new StringBuilder(seed);
        int mutations = random.nextInt(3);
        for (int m = 0; m < mutations && s.length() > 0; m++) {
            int at = random.nextInt(s.length());
            switch (random.nextInt(4)) {
                case 0 -> s.deleteCharAt(at);
                case 1 -> s.insert(at, (char) (32 + random.nextInt(95)));
                case 2 -> s.setCharAt(at, (char) (32 + random.nextInt(95)));
                default -> s.insert(at, "\"x\":1,");
            }
        }
        return s.toString();
    }

    private static String garbageKey(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> "k".repeat(256 + random.nextInt(10));
            case 1 -> "has space";
            default -> "é-unicode";
        };
    }

    private long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }
}
