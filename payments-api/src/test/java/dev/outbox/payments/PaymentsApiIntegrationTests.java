package dev.outbox.payments;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.outbox.contract.EventTypes;
import dev.outbox.local.LocalCredentials;
import dev.outbox.security.RawHttp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PaymentsApiIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    JsonMapper json;

    ApiClient api;

    /** "status type" of the problems the served OpenAPI document names, read once. */
    java.util.Set<String> documented;

    @BeforeEach
    void client() {
        api = new ApiClient("http://127.0.0.1:" + port);
    }

    @Test
    void createsPaymentWithItsOutboxEventAndIdempotencyRecord() {
        String key = key();
        HttpResponse<String> response = api.createPayment(key, """
                {"amount": "12.50", "currency": "EUR", "description": "order 42"}""");

        assertThat(response.statusCode()).isEqualTo(201);
        JsonNode body = json.readTree(response.body());
        UUID id = UUID.fromString(body.get("id").asString());
        assertThat(body.get("amount").asString()).isEqualTo("12.50");
        assertThat(body.get("status").asString()).isEqualTo("CREATED");
        assertThat(response.headers().firstValue("Location")).hasValue("/payments/" + id);

        Map<String, Object> event = jdbc.sql("""
                SELECT aggregate_type, aggregate_version, event_type, schema_version, payload::text AS payload,
                       trace_parent, published_at
                  FROM outbox_messages WHERE aggregate_id = :id""").param("id", id).query().singleRow();
        assertThat(event.get("aggregate_type")).isEqualTo(EventTypes.PAYMENT);
        assertThat(event.get("aggregate_version")).isEqualTo(1L);
        assertThat(event.get("event_type")).isEqualTo(EventTypes.PAYMENT_CREATED);
        assertThat(event.get("schema_version")).isEqualTo(1);
        assertThat(event.get("published_at")).isNull();
        assertThat((String) event.get("trace_parent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
        JsonNode payload = json.readTree((String) event.get("payload"));
        assertThat(payload.get("paymentId").asString()).isEqualTo(id.toString());
        assertThat(payload.get("amount").asString()).isEqualTo("12.50");
        assertThat(payload.get("currency").asString()).isEqualTo("EUR");
        Map<String, Object> record = jdbc.sql("""
                SELECT resource_id, response_status, convert_from(response_body, 'UTF8') AS body
                  FROM idempotency_keys WHERE client_id = 'client-a' AND idempotency_key = :key""").param("key", key).query().singleRow();
        assertThat(record.get("resource_id")).isEqualTo(id);
        assertThat(record.get("response_status")).isEqualTo(201);
        assertThat(record.get("body")).isEqualTo(response.body());
    }

    @Test
    void continuesTheCallersTraceOnTheOutboxRow() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        var request = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/payments"))
                .header("Authorization", "Bearer " + ApiClient.CLIENT_A_KEY)
                .header("Idempotency-Key", key())
                .header("Content-Type", "application/json")
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"amount\":\"1.00\",\"currency\":\"EUR\"}"))
                .build();
        HttpResponse<String> response = send(request);

        assertThat(response.statusCode()).isEqualTo(201);
        UUID id = UUID.fromString(json.readTree(response.body()).get("id").asString());
        String stored = jdbc.sql("SELECT trace_parent FROM outbox_messages WHERE aggregate_id = :id")
                .param("id", id)
                .query(String.class)
                .single();
        assertThat(stored).startsWith("00-" + traceId + "-").endsWith("-01");
    }

    @Test
    void replaysTheStoredResponseByteForByteWithoutASecondPayment() {
        String key = key();
        String body = "{\"amount\": \"99.99\", \"currency\": \"USD\"}";
        HttpResponse<String> first = api.createPayment(key, body);
        long payments = count("payments");
        long events = count("outbox_messages");

        HttpResponse<String> second = api.createPayment(key, body);

        assertThat(second.statusCode()).isEqualTo(first.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(count("payments")).isEqualTo(payments);
        assertThat(count("outbox_messages")).isEqualTo(events);
    }

    @Test
    void treatsTheSameAmountWrittenDifferentlyAsTheSameRequest() {
        String key = key();
        HttpResponse<String> first = api.createPayment(key, "{\"amount\": \"10\", \"currency\": \"EUR\"}");
        HttpResponse<String> second = api.createPayment(key, "{\"currency\":\"EUR\",\"amount\":\"10.00\"}");

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body());
    }

    @Test
    void rejectsTheSameKeyWithAnotherBodyAndWritesNothing() {
        String key = key();
        HttpResponse<String> first = api.createPayment(key, "{\"amount\": \"5\", \"currency\": \"EUR\"}");
        Snapshot before = snapshot();

        HttpResponse<String> other = api.createPayment(key, "{\"amount\": \"6\", \"currency\": \"EUR\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(other, 422, "idempotency-key-reused");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void scopesIdempotencyKeysPerClient() {
        String key = key();
        String body = "{\"amount\": \"5\", \"currency\": \"EUR\"}";
        HttpResponse<String> a = api.post("/payments", ApiClient.CLIENT_A_KEY, key, body);
        HttpResponse<String> b = api.post("/payments", ApiClient.CLIENT_B_KEY, key, body);

        assertThat(a.statusCode()).isEqualTo(201);
        assertThat(b.statusCode()).isEqualTo(201);
        assertThat(id(a)).isNotEqualTo(id(b));
        assertThat(api.get("/payments/" + id(a), ApiClient.CLIENT_B_KEY).statusCode())
                .isEqualTo(404);
        assertThat(api.get("/payments/" + id(a), ApiClient.CLIENT_A_KEY).statusCode())
                .isEqualTo(200);
    }

    @Test
    void fiftyConcurrentRequestsWithOneKeyCreateExactlyOnePayment() throws Exception {
        String key = key();
        String body = "{\"amount\": \"42.00\", \"currency\": \"EUR\"}";
        long payments = count("payments");
        long events = count("outbox_messages");
        int requests = 50;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                Callable<HttpResponse<String>> call = () -> {
                    start.await();
                    return api.createPayment(key, body);
                };
                futures.add(pool.submit(call));
            }
            start.countDown();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> f : futures) {
                responses.add(f.get());
            }

            assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(201));
            assertThat(responses)
                    .extracting(HttpResponse::body)
                    .containsOnly(responses.get(0).body());
            assertThat(responses)
                    .filteredOn(r -> r.headers()
                            .firstValue("Idempotent-Replayed")
                            .orElse("")
                            .equals("false"))
                    .hasSize(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(count("payments")).isEqualTo(payments + 1);
        assertThat(count("outbox_messages")).isEqualTo(events + 1);
    }

    @Test
    void refundEmitsTheNextAggregateVersionAndIsIdempotent() {
        UUID id = id(api.createPayment(key(), "{\"amount\": \"100.00\", \"currency\": \"EUR\"}"));
        String refundKey = key();

        HttpResponse<String> refund =
                api.post("/payments/" + id + "/refunds", ApiClient.CLIENT_A_KEY, refundKey, "{\"amount\": \"30.00\"}");
        HttpResponse<String> replay =
                api.post("/payments/" + id + "/refunds", ApiClient.CLIENT_A_KEY, refundKey, "{\"amount\": \"30\"}");
        HttpResponse<String> second =
                api.post("/payments/" + id + "/refunds", ApiClient.CLIENT_A_KEY, key(), "{\"amount\": \"70.00\"}");
        Snapshot before = snapshot();
        HttpResponse<String> tooMuch =
                api.post("/payments/" + id + "/refunds", ApiClient.CLIENT_A_KEY, key(), "{\"amount\": \"0.01\"}");

        assertThat(refund.statusCode()).isEqualTo(201);
        assertThat(replay.body()).isEqualTo(refund.body());
        assertThat(second.statusCode()).isEqualTo(201);
        assertProblem(tooMuch, 409, "refund-exceeds-payment");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(jdbc.sql("""
                SELECT event_type || ':' || aggregate_version FROM outbox_messages
                 WHERE aggregate_id = :id ORDER BY aggregate_version""").param("id", id).query(String.class).list())
                .containsExactly("PaymentCreated:1", "PaymentRefunded:2", "PaymentRefunded:3");
        JsonNode payment =
                json.readTree(api.get("/payments/" + id, ApiClient.CLIENT_A_KEY).body());
        assertThat(payment.get("status").asString()).isEqualTo("REFUNDED");
        assertThat(payment.get("refundedAmount").asString()).isEqualTo("100.00");
        assertThat(payment.get("version").asLong()).isEqualTo(3);
    }

    @Test
    void anotherClientCannotRefundAPayment() {
        UUID id = id(api.createPayment(key(), "{\"amount\": \"10.00\", \"currency\": \"EUR\"}"));
        Snapshot before = snapshot();

        HttpResponse<String> refund =
                api.post("/payments/" + id + "/refunds", ApiClient.CLIENT_B_KEY, key(), "{\"amount\": \"1.00\"}");

        assertProblem(refund, 404, "not-found");
        assertThat(snapshot()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "malformed JSON          | {\"amount\": \"10\", \"currency\": ",
                "not an object           | [1,2,3]",
                "empty body              | ''",
                "zero amount             | {\"amount\": \"0\", \"currency\": \"EUR\"}",
                "negative amount         | {\"amount\": \"-5\", \"currency\": \"EUR\"}",
                "amount as text garbage  | {\"amount\": \"ten\", \"currency\": \"EUR\"}",
                "missing amount          | {\"currency\": \"EUR\"}",
                "JPY has no minor unit   | {\"amount\": \"1.5\", \"currency\": \"JPY\"}",
                "BHD has three decimals  | {\"amount\": \"1.2345\", \"currency\": \"BHD\"}",
                "EUR has two decimals    | {\"amount\": \"1.005\", \"currency\": \"EUR\"}",
                "unknown currency        | {\"amount\": \"1\", \"currency\": \"ABC\"}",
                "lower-case currency     | {\"amount\": \"1\", \"currency\": \"eur\"}",
                "gold is not money here  | {\"amount\": \"1\", \"currency\": \"XAU\"}",
                "absurd amount           | {\"amount\": \"1000000000000\", \"currency\": \"EUR\"}",
                "client-set status       | {\"amount\": \"1\", \"currency\": \"EUR\", \"status\": \"REFUNDED\"}",
                "client-set id           | {\"amount\": \"1\", \"currency\": \"EUR\", \"id\": \"6f1c1d4e-0000-0000-0000-000000000000\"}",
                "trailing garbage        | {\"amount\": \"1\", \"currency\": \"EUR\"} x",
                "duplicate key           | {\"amount\": \"1.00\", \"amount\": \"900.00\", \"currency\": \"EUR\"}",
                "amount as a number      | {\"amount\": 10, \"currency\": \"EUR\"}",
                "amount as a fraction    | {\"amount\": 10.50, \"currency\": \"EUR\"}",
                "exponent                | {\"amount\": \"1E+1\", \"currency\": \"EUR\"}",
                "plus sign               | {\"amount\": \"+1.00\", \"currency\": \"EUR\"}",
                "padded amount           | {\"amount\": \" 1.00 \", \"currency\": \"EUR\"}",
                "description as a number | {\"amount\": \"1.00\", \"currency\": \"EUR\", \"description\": 42}",
                "lone surrogate          | {\"amount\": \"1.00\", \"currency\": \"EUR\", \"description\": \"a\\ud800b\"}",
                "bidi override           | {\"amount\": \"1.00\", \"currency\": \"EUR\", \"description\": \"\\u202eevil\"}",
                "zero-width space        | {\"amount\": \"1.00\", \"currency\": \"EUR\", \"description\": \"a\\u200bb\"}",
            })
    void rejectsBadInputWithAProblemAndWritesNothing(String name, String body) {
        Snapshot before = snapshot();

        HttpResponse<String> response = api.createPayment(key(), body);

        assertProblem(response, 400, "invalid-request");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void acceptsTheFinestScaleOfYenAndDinars() {
        assertThat(api.createPayment(key(), "{\"amount\": \"1500\", \"currency\": \"JPY\"}")
                        .statusCode())
                .isEqualTo(201);
        assertThat(api.createPayment(key(), "{\"amount\": \"1.234\", \"currency\": \"BHD\"}")
                        .statusCode())
                .isEqualTo(201);
        assertThat(api.createPayment(key(), "{\"amount\": \"1.50\", \"currency\": \"JPY\"}")
                        .statusCode())
                .isEqualTo(400);
    }

    @Test
    void requiresAWellFormedIdempotencyKey() {
        String body = "{\"amount\": \"1\", \"currency\": \"EUR\"}";
        Snapshot before = snapshot();

        assertProblem(api.createPayment(null, body), 400, "invalid-request");
        assertProblem(api.createPayment("x".repeat(256), body), 400, "invalid-request");
        assertProblem(api.createPayment("has space", body), 400, "invalid-request");
        assertThat(api.createPayment("k".repeat(255), body).statusCode()).isEqualTo(201);
        assertThat(count("payments")).isEqualTo(before.payments() + 1);
    }

    @Test
    void rejectsAnOversizeBodyWith413() {
        Snapshot before = snapshot();
        String body = "{\"amount\": \"1\", \"currency\": \"EUR\", \"description\": \"" + "x".repeat(20_000) + "\"}";

        assertProblem(api.createPayment(key(), body), 413, "payload-too-large");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void rejectsUnauthenticatedCalls() {
        HttpResponse<String> none = api.post("/payments", null, key(), "{\"amount\": \"1\", \"currency\": \"EUR\"}");
        HttpResponse<String> wrong =
                api.post("/payments", "not-a-key", key(), "{\"amount\": \"1\", \"currency\": \"EUR\"}");

        assertProblem(none, 401, "unauthenticated");
        assertProblem(wrong, 401, "unauthenticated");
    }

    @Test
    void operationsLiveOnTheManagementPortBehindTheAdminToken(@LocalManagementPort int management) {
        assertThat(management).isNotEqualTo(port);
        ApiClient ops = new ApiClient("http://127.0.0.1:" + management);

        assertThat(RawHttp.get(management, "/actuator/health", null).status()).isEqualTo(200);
        assertThat(RawHttp.get(management, "/actuator/health", null).body()).doesNotContain("components");
        assertThat(ops.get("/actuator/health", "anything").statusCode())
                .as("a wrong credential is refused wherever it is presented")
                .isEqualTo(401);
        HttpResponse<String> anonymous = ops.get("/actuator/prometheus", "not-the-admin-token");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body())
                .contains("urn:problem-type:admin:unauthenticated")
                .doesNotContain("jvm_");
        assertThat(ops.get("/actuator/info", LocalCredentials.CLIENT_A_KEY).statusCode())
                .isEqualTo(401);
        HttpResponse<String> admin = ops.get("/actuator/prometheus", LocalCredentials.ADMIN_TOKEN);
        assertThat(admin.statusCode()).isEqualTo(200);
        assertThat(admin.body()).contains("http_server_requests");

        // the API port keeps the probes and nothing else of the actuator
        assertThat(RawHttp.get(port, "/readyz", null).status()).isEqualTo(200);
        assertThat(RawHttp.get(port, "/livez", null).status()).isEqualTo(200);
        assertThat(api.get("/readyz", "anything").statusCode()).isEqualTo(401);
        assertThat(api.get("/actuator/prometheus", LocalCredentials.ADMIN_TOKEN).statusCode())
                .isEqualTo(404);
    }

    @Test
    void unknownPaymentIsNotFound() {
        assertProblem(api.get("/payments/" + UUID.randomUUID(), ApiClient.CLIENT_A_KEY), 404, "not-found");
        assertProblem(api.get("/payments/not-a-uuid", ApiClient.CLIENT_A_KEY), 404, "not-found");
    }

    @Test
    void expiredKeysAreDeletedAndAnExpiredKeyCanBeUsedAgain(
            @Autowired dev.outbox.payments.idempotency.KeyExpiry expiry) {
        String key = key();
        HttpResponse<String> first = api.createPayment(key, "{\"amount\": \"3\", \"currency\": \"EUR\"}");
        jdbc.sql("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = :key")
                .param("key", key)
                .update();

        HttpResponse<String> reused = api.createPayment(key, "{\"amount\": \"4\", \"currency\": \"EUR\"}");

        assertThat(reused.statusCode()).isEqualTo(201);
        assertThat(id(reused)).isNotEqualTo(id(first));
        jdbc.sql("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = :key")
                .param("key", key)
                .update();
        assertThat(expiry.purge()).isGreaterThanOrEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = :key")
                        .param("key", key)
                        .query(Long.class)
                        .single())
                .isZero();
    }

    @Test
    void acceptsOnlyJsonInUtf8() {
        String body = "{\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        Snapshot before = snapshot();

        assertProblem(
                raw("POST", "/payments", Map.of("Content-Type", "text/plain"), body),
                415,
                "http:unsupported-media-type");
        assertProblem(raw("POST", "/payments", Map.of(), body), 415, "http:unsupported-media-type");
        assertProblem(
                raw(
                        "POST",
                        "/payments",
                        Map.of("Content-Type", "application/x-www-form-urlencoded"),
                        "amount=1.00&currency=EUR"),
                415,
                "http:unsupported-media-type");
        assertProblem(
                raw("POST", "/payments", Map.of("Content-Type", "application/json; charset=UTF-16"), body),
                415,
                "http:unsupported-media-type");
        byte[] utf16 = body.getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
        assertProblem(rawBytes("/payments", "application/json", utf16), 400, "payments:invalid-request");
        byte[] bom = ("\uFEFF" + body).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertProblem(rawBytes("/payments", "application/json", bom), 400, "payments:invalid-request");
        assertProblem(rawBytes("/payments", "application/json", withSurrogateBytes()), 400, "payments:invalid-request");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(raw("POST", "/payments", Map.of("Content-Type", "application/json; charset=utf-8"), body)
                        .status())
                .isEqualTo(201);
    }

    @Test
    void refusesTwoIdempotencyKeyHeadersInsteadOfJoiningThem() {
        Snapshot before = snapshot();
        byte[] request = ("POST /payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                        + "Authorization: Bearer " + ApiClient.CLIENT_A_KEY + "\r\nContent-Type: application/json\r\n"
                        + "Idempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Length: 34\r\n\r\n"
                        + "{\"amount\":\"1.00\",\"currency\":\"EUR\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        RawHttp.Response response = RawHttp.sendBytes(port, request);

        assertDocumentedProblem(response, 400);
        assertThat(response.body()).contains("exactly one Idempotency-Key");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void answersWithTheDescriptionAsStoredAndNeverLetsAResponseBeCached() {
        String description = "Café №42 — 支払い 💶";
        HttpResponse<String> created = api.createPayment(
                key(), "{\"amount\":\"7.00\",\"currency\":\"EUR\"," + "\"description\":\"" + description + "\"}");

        UUID id = id(created);
        assertThat(json.readTree(created.body()).get("description").asString()).isEqualTo(description);
        assertThat(jdbc.sql("SELECT description FROM payments WHERE id = :id")
                        .param("id", id)
                        .query(String.class)
                        .single())
                .isEqualTo(description);
        assertThat(created.headers().firstValue("Cache-Control"))
                .hasValueSatisfying(v -> assertThat(v).contains("no-store"));
        assertThat(api.get("/payments/" + id, ApiClient.CLIENT_A_KEY).headers().firstValue("Cache-Control"))
                .hasValueSatisfying(v -> assertThat(v).contains("no-store"));
    }

    @Test
    void everyRefusalOfTheApiPortIsAProblemDocument() {
        assertProblem(
                raw("DELETE", "/payments", Map.of("Authorization", "Bearer " + ApiClient.CLIENT_A_KEY), null),
                405,
                "http:method-not-allowed");
        assertProblem(raw("GET", "/no-such-thing", Map.of(), null), 404, "http:not-found");
        assertProblem(raw("GET", "/payments;x", Map.of(), null), 400, "http:request-rejected");
        assertProblem(raw("GET", "/payments/%2e%2e/readyz", Map.of(), null), 400, "http:request-rejected");
        assertProblem(raw("GET", "/pay%00ments", Map.of(), null), 400, "http:bad-request");
        assertProblem(raw("GET", "/readyz", Map.of("X-Big", "a".repeat(20_000)), null), 400, "http:bad-request");
        assertProblem(RawHttp.get(port, "/%70ayments/" + UUID.randomUUID(), null), 401, "payments:unauthenticated");
        assertProblem(
                raw("GET", "/payments/1-1-1-1-1", Map.of("Authorization", "Bearer " + ApiClient.CLIENT_A_KEY), null),
                404,
                "payments:not-found");
        assertProblem(raw("TRACE", "/payments", Map.of(), null), 405, "http:method-not-allowed");
        Snapshot before = snapshot();
        byte[] twoContentTypes = ("POST /payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "
                        + ApiClient.CLIENT_A_KEY + "\r\nIdempotency-Key: " + key()
                        + "\r\nContent-Type: application/json\r\n"
                        + "Content-Type: text/plain\r\nContent-Length: 34\r\n\r\n{\"amount\":\"1.00\",\"currency\":\"EUR\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertProblem(RawHttp.sendBytes(port, twoContentTypes), 400, "payments:invalid-request");
        byte[] badChunk = ("POST /payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "
                        + ApiClient.CLIENT_A_KEY + "\r\nIdempotency-Key: " + key()
                        + "\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        RawHttp.Response unreadable = RawHttp.sendBytes(port, badChunk);
        assertDocumentedProblem(unreadable, 400);
        assertThat(snapshot()).isEqualTo(before);
    }

    private RawHttp.Response raw(String method, String target, Map<String, String> headers, String body) {
        Map<String, String> all = new java.util.LinkedHashMap<>(headers);
        all.putIfAbsent("Authorization", "Bearer " + ApiClient.CLIENT_A_KEY);
        if (method.equals("POST")) {
            all.putIfAbsent("Idempotency-Key", key());
        }
        return RawHttp.send(port, method, target, all, body);
    }

    private RawHttp.Response rawBytes(String target, String contentType, byte[] body) {
        byte[] head = ("POST " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "
                        + ApiClient.CLIENT_A_KEY + "\r\nIdempotency-Key: " + key() + "\r\nContent-Type: " + contentType
                        + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] request = java.util.Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return RawHttp.sendBytes(port, request);
    }

    /** A description holding U+D800 encoded as UTF-8 bytes (ED A0 80): not UTF-8 at all. */
    private static byte[] withSurrogateBytes() {
        String prefix = "{\"amount\":\"1.00\",\"currency\":\"EUR\",\"description\":\"a";
        byte[] head = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] tail = "b\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + 3 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xED;
        body[head.length + 1] = (byte) 0xA0;
        body[head.length + 2] = (byte) 0x80;
        System.arraycopy(tail, 0, body, head.length + 3, tail.length);
        return body;
    }

    private void assertProblem(RawHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.toString()).isTrue();
        assertThat(response.body())
                .contains("\"type\":\"urn:problem-type:" + type + "\"")
                .doesNotContainIgnoringCase("exception")
                .doesNotContain("java.");
        assertDocumented(status, type);
    }

    private void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("type").asString()).isEqualTo("urn:problem-type:payments:" + type);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(response.body()).doesNotContainIgnoringCase("exception").doesNotContainIgnoringCase("select ");
        assertDocumented(status, "payments:" + type);
    }

    /** A problem document of this status, whatever its type, that the OpenAPI document names. */
    private void assertDocumentedProblem(RawHttp.Response response, int status) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.toString()).isTrue();
        String type = json.readTree(response.body()).path("type").asString();
        assertThat(type).as(response.toString()).startsWith("urn:problem-type:");
        assertDocumented(status, type.substring("urn:problem-type:".length()));
    }

    /** Every problem a client can get here is one the OpenAPI document names, with the status it came with. */
    private void assertDocumented(int status, String type) {
        if (documented == null) {
            documented = ApiDocs.problems(ApiDocs.served(port));
        }
        assertThat(documented)
                .as("the OpenAPI document names this problem with this status")
                .contains(status + " " + type);
    }

    private HttpResponse<String> send(java.net.http.HttpRequest request) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private UUID id(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return UUID.fromString(json.readTree(response.body()).get("id").asString());
    }

    private long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }

    private Snapshot snapshot() {
        return new Snapshot(count("payments"), count("outbox_messages"), count("idempotency_keys"), count("refunds"));
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    record Snapshot(long payments, long outbox, long keys, long refunds) {}
}
