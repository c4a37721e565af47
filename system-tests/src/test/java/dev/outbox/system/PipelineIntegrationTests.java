package dev.outbox.system;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole chain, end to end: HTTP with Idempotency-Keys -> payments + outbox -> CDC relay -> Kafka ->
 * accounting inbox + ledger. 500 payments, some retried with the same key, some refunded; afterwards every
 * payment's ledger total equals amount minus refunds, with one ledger entry per event.
 */
class PipelineIntegrationTests {

    static final JsonMapper JSON = JsonMapper.builder().build();
    final HttpClient http = HttpClient.newHttpClient();

    @Test
    void fiveHundredPaymentsThroughHttpKeepTheLedgerInvariant() throws Exception {
        String suffix = "e2e" + Long.toHexString(System.nanoTime());
        String payments = SharedInfra.freshDatabase("payments");
        String accounting = SharedInfra.freshDatabase("accounting");
        String topic = "t-" + suffix + ".payment.events";
        OutboxRows.migrate(
                SharedInfra.postgres().jdbcUrl(payments),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password());

        try (ConfigurableApplicationContext relay = RelayApplication.builder()
                        .run(
                                "--server.port=" + Ports.free(),
                                "--relay.db.host=" + SharedInfra.postgres().host(),
                                "--relay.db.port=" + SharedInfra.postgres().port(),
                                "--relay.db.name=" + payments,
                                "--relay.kafka.bootstrap-servers="
                                        + SharedInfra.kafka().bootstrapServers(),
                                "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
                                "--relay.cdc.slot-name=slot_" + suffix,
                                "--relay.cdc.offsets-topic=offsets-" + suffix);
                ConfigurableApplicationContext api = new org.springframework.boot.builder.SpringApplicationBuilder(
                                PaymentsApplication.class)
                        .run(
                                "--server.port=0",
                                "--management.server.port=0",
                                "--spring.datasource.url="
                                        + SharedInfra.postgres().jdbcUrl(payments),
                                "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                                "--spring.datasource.password=" + LocalCredentials.POSTGRES.password());
                ConfigurableApplicationContext consumer = AccountingApplication.builder()
                        .run(EventFixtures.consumerArgs(accounting, topic, "e2e-" + suffix))) {
            JdbcClient paymentsDb = EventFixtures.jdbc(payments);
            JdbcClient ledgerDb = EventFixtures.jdbc(accounting);
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> paymentsDb
                                    .sql("SELECT count(*) FROM pg_replication_slots WHERE active")
                                    .query(Long.class)
                                    .single()
                            == 1);
            String base = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port");

            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<UUID>> created = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                int n = i;
                created.add(pool.submit(() -> {
                    String key = "pay-" + n + "-" + suffix;
                    String body = "{\"amount\":\"" + (10 + n % 90) + ".25\",\"currency\":\"EUR\"}";
                    HttpResponse<String> first = post(base + "/payments", key, body);
                    if (n % 10 == 0) {
                        HttpResponse<String> retry = post(base + "/payments", key, body);
                        assertThat(retry.body()).isEqualTo(first.body());
                    }
                    return UUID.fromString(JSON.readTree(first.body()).get("id").asString());
                }));
            }
            List<UUID> ids = new ArrayList<>();
            for (Future<UUID> f : created) {
                ids.add(f.get());
            }
            List<Future<?>> refunds = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                UUID id = ids.get(i * 5);
                int n = i;
                refunds.add(pool.submit(() -> {
                    String key = "refund-" + n + "-" + suffix;
                    post(base + "/payments/" + id + "/refunds", key, "{\"amount\":\"5.00\"}");
                    if (n % 4 == 0) {
                        post(base + "/payments/" + id + "/refunds", key, "{\"amount\":\"5.00\"}");
                        post(base + "/payments/" + id + "/refunds", key + "-b", "{\"amount\":\"0.25\"}");
                    }
                }));
            }
            for (Future<?> f : refunds) {
                f.get();
            }
            pool.shutdown();

            String traceId = "7af7651916cd43dd8448eb211c80319d";
            HttpResponse<String> traced = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/payments"))
                            .header("Authorization", "Bearer local-key-client-a")
                            .header("Idempotency-Key", "traced-" + suffix)
                            .header("Content-Type", "application/json")
                            .header("traceparent", "00-" + traceId + "-b7ad6b7169203331-01")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":\"1.00\",\"currency\":\"EUR\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            UUID tracedPayment =
                    UUID.fromString(JSON.readTree(traced.body()).get("id").asString());

            long events = paymentsDb
                    .sql("SELECT count(*) FROM outbox_messages")
                    .query(Long.class)
                    .single();
            assertThat(events).isEqualTo(500 + 100 + 25 + 1);
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> ledgerDb.sql("SELECT count(*) FROM ledger_entries")
                                    .query(Long.class)
                                    .single()
                            == events);

            Map<UUID, BigDecimal> expected = new java.util.HashMap<>();
            paymentsDb
                    .sql("SELECT id, amount - refunded_amount AS net FROM payments")
                    .query((rs, n) -> expected.put(rs.getObject("id", UUID.class), rs.getBigDecimal("net")))
                    .list();
            Map<UUID, BigDecimal> ledger = new java.util.HashMap<>();
            ledgerDb.sql("SELECT payment_id, sum(amount) AS total FROM ledger_entries GROUP BY payment_id")
                    .query((rs, n) -> ledger.put(rs.getObject("payment_id", UUID.class), rs.getBigDecimal("total")))
                    .list();
            assertThat(expected).hasSize(501);
            assertThat(ledgerDb.sql("SELECT trace_id FROM ledger_entries WHERE payment_id = :id")
                            .param("id", tracedPayment)
                            .query(String.class)
                            .single())
                    .as("the consumer's span belongs to the API request's trace")
                    .isEqualTo(traceId);
            assertThat(ledger.keySet()).isEqualTo(expected.keySet());
            expected.forEach((id, net) ->
                    assertThat(ledger.get(id)).as("ledger of " + id).isEqualByComparingTo(net));
            assertThat(ledgerDb.sql("""
                    SELECT count(*) FROM (SELECT event_id FROM ledger_entries GROUP BY event_id HAVING count(*) > 1) d""").query(Long.class).single()).isZero();
            // Published means covered by the stored stream horizon, which the relay stores after Kafka acknowledged
            // and on its own schedule: the ledger can hold an event before the horizon that covers it is stored.
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(paymentsDb
                                    .sql(
                                            "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL")
                                    .query(Long.class)
                                    .single())
                            .isZero());
        }
    }

    private HttpResponse<String> post(String url, String key, String body) {
        HttpResponse<String> response;
        try {
            response = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .header("Authorization", "Bearer local-key-client-a")
                            .header("Idempotency-Key", key)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return response;
    }
}
