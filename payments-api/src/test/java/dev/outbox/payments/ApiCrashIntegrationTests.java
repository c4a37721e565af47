package dev.outbox.payments;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.outbox.local.JavaProcess;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.Readiness;
import dev.outbox.pause.PausingPaymentsApi;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The API process is SIGKILLed after its transaction committed and before it answered (the
 * payment and its outbox row survive), and the client, having seen no answer, retries with the same
 * Idempotency-Key: one payment, and the response it would have had.
 */
class ApiCrashIntegrationTests {

    @Test
    void crashBetweenCommitAndResponseThenClientRetryGetsTheSameResponse(@TempDir Path tmp) throws Exception {
        String database = SharedInfra.freshDatabase("payments");
        JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(database),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password()));
        int port = Ports.free();
        Path marker = tmp.resolve("reached");
        Map<String, String> env = new HashMap<>(Map.of(
                "PAYMENTS_DB_URL", SharedInfra.postgres().jdbcUrl(database),
                "PAYMENTS_HTTP_PORT", String.valueOf(port),
                "PAYMENTS_MANAGEMENT_PORT", "0"));
        Map<String, String> crashing = new HashMap<>(env);
        crashing.put("PAUSE_MARKER", marker.toString());
        String body = "{\"amount\":\"80.00\",\"currency\":\"EUR\"}";
        HttpClient http = HttpClient.newHttpClient();

        Process first = start(PausingPaymentsApi.class, crashing, port, "api-crash-1");
        CompletableFuture<HttpResponse<String>> lost;
        try {
            lost = http.sendAsync(request(port, "retry-me", body), HttpResponse.BodyHandlers.ofString());
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(marker));
        } finally {
            JavaProcess.kill(first);
        }
        assertThat(lost).failsWithin(Duration.ofSeconds(10));
        assertThat(jdbc.sql("SELECT count(*) FROM payments").query(Long.class).single())
                .isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM outbox_messages")
                        .query(Long.class)
                        .single())
                .isEqualTo(1);

        Process second = start(PaymentsApplication.class, env, port, "api-crash-2");
        try {
            HttpResponse<String> retried =
                    http.send(request(port, "retry-me", body), HttpResponse.BodyHandlers.ofString());
            assertThat(retried.statusCode()).isEqualTo(201);
            assertThat(retried.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            String stored = jdbc.sql("SELECT convert_from(response_body, 'UTF8') FROM idempotency_keys")
                    .query(String.class)
                    .single();
            assertThat(retried.body()).isEqualTo(stored).contains("\"amount\":\"80.00\"");
        } finally {
            JavaProcess.kill(second);
        }
        assertThat(jdbc.sql("SELECT count(*) FROM payments").query(Long.class).single())
                .isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM outbox_messages")
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    private static Process start(Class<?> main, Map<String, String> env, int port, String name) {
        Process process = JavaProcess.builder(main.getName())
                .env(env)
                .heap("384m")
                // C1 only: starts sooner; the test is about a crash, not speed
                .jvmArg("-XX:TieredStopAtLevel=1")
                .logTo(Path.of("target", name + ".log"))
                .start();
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> Readiness.answers(port, "/readyz"));
        return process;
    }

    private static HttpRequest request(int port, String key, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                .header("Authorization", "Bearer " + ApiClient.CLIENT_A_KEY)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
