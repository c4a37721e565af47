package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.reconcile.InvariantChecker;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PostgreSQL crashes ({@code pg_ctl -m immediate}) under HTTP load while the CDC relay streams and the consumer
 * applies. Clients retry failed requests with the same Idempotency-Key, as they must. Afterwards: one payment per
 * key, every event applied exactly once, every ledger total right.
 */
class PostgresRestartIntegrationTests {

    @Test
    void postgresCrashUnderLoadLosesNothingAndDuplicatesNoEffect() throws Exception {
        String suffix = "pgcrash" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        try (TestPostgres pg = TestPostgres.start(false)) {
            SharedInfra.createDatabases(pg, "payments", "accounting");
            OutboxRows.migrate(
                    pg.jdbcUrl("payments"), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
            try (ConfigurableApplicationContext relay = RelayApplication.builder()
                            .run(
                                    "--server.port=" + Ports.free(),
                                    "--relay.db.port=" + pg.port(),
                                    "--relay.db.name=payments",
                                    "--relay.kafka.bootstrap-servers="
                                            + SharedInfra.kafka().bootstrapServers(),
                                    "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
                                    "--relay.cdc.slot-name=slot_" + suffix,
                                    "--relay.cdc.offsets-topic=offsets-" + suffix,
                                    "--relay.cdc.restart-backoff=1s",
                                    "--relay.safety-net.grace=10s",
                                    "--relay.safety-net.interval=2s");
                    ConfigurableApplicationContext api = new SpringApplicationBuilder(PaymentsApplication.class)
                            .run(
                                    "--server.port=0",
                                    "--management.server.port=0",
                                    "--spring.datasource.url=" + pg.jdbcUrl("payments"),
                                    "--spring.datasource.hikari.connection-timeout=2000");
                    ConfigurableApplicationContext consumer = AccountingApplication.builder()
                            .run(
                                    "--server.port=0",
                                    "--management.server.port=0",
                                    "--spring.datasource.url=" + pg.jdbcUrl("accounting"),
                                    "--spring.kafka.bootstrap-servers="
                                            + SharedInfra.kafka().bootstrapServers(),
                                    "--spring.kafka.consumer.group-id=" + suffix,
                                    "--accounting.topic=" + topic)) {
                await().atMost(Duration.ofSeconds(90)).until(() -> slotActive(pg, "slot_" + suffix));
                String base = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port");

                // The clients post without a pause until well after the restart, so requests are in flight at the
                // crash whatever the machine's speed (a fixed number of requests may all be answered before it).
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger issued = new AtomicInteger();
                AtomicInteger created = new AtomicInteger();
                AtomicInteger retries = new AtomicInteger();
                AtomicReference<Throwable> clientFailure = new AtomicReference<>();
                ExecutorService clients = Executors.newFixedThreadPool(4);
                List<Future<?>> load = new ArrayList<>();
                try {
                    for (int t = 0; t < 4; t++) {
                        int thread = t;
                        load.add(clients.submit(() -> {
                            for (int i = 0; !stop.get() && i < 5_000; i++) {
                                issued.incrementAndGet();
                                postUntilAnswered(base, suffix + "-" + thread + "-" + i, retries, clientFailure);
                                created.incrementAndGet();
                            }
                        }));
                    }
                    await().atMost(Duration.ofSeconds(60)).until(() -> created.get() >= 150);
                    pg.restartImmediately();
                    int afterRestart = created.get();
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> created.get() >= afterRestart + 300 || clientFailure.get() != null);
                    stop.set(true);
                    for (Future<?> f : load) {
                        f.get();
                    }
                } finally {
                    // a failed step must not leave the clients posting into the next tests
                    stop.set(true);
                    clients.shutdownNow();
                }
                assertThat(clientFailure.get()).isNull();
                assertThat(retries.get())
                        .as("requests the crash made clients retry")
                        .isPositive();

                await().atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> {
                            try (Connection p = pg.connect("payments");
                                    Connection a = pg.connect("accounting")) {
                                return InvariantChecker.check(p, a, "accounting", null, null)
                                        .holds();
                            }
                        });
                try (Connection p = pg.connect("payments");
                        Connection a = pg.connect("accounting")) {
                    InvariantChecker.Report report = InvariantChecker.check(
                            p, a, "accounting", SharedInfra.kafka().adminClientProperties(), topic);
                    System.out.println("postgres crash under load: " + report + ", client retries=" + retries);
                    assertThat(report.holds()).as(report.toString()).isTrue();
                    assertThat(report.payments()).as("one payment per key").isEqualTo(issued.get());
                    assertThat(report.events()).isEqualTo(issued.get());
                }
            }
        }
    }

    /** A well-behaved client: on any failure, the same request with the same Idempotency-Key, until answered. */
    private static void postUntilAnswered(
            String base, String key, AtomicInteger retries, AtomicReference<Throwable> failure) {
        HttpClient http = HttpClient.newHttpClient();
        for (int attempt = 0; attempt < 200; attempt++) {
            try {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/payments"))
                                .header("Authorization", "Bearer local-key-client-a")
                                .header("Idempotency-Key", key)
                                .header("Content-Type", "application/json")
                                .timeout(Duration.ofSeconds(10))
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"amount\":\"12.34\",\"currency\":\"EUR\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 201) {
                    return;
                }
            } catch (Exception e) {
                // the server is restarting; retry with the same key
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            retries.incrementAndGet();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        failure.compareAndSet(null, new AssertionError("no answer for " + key));
    }

    private static boolean slotActive(TestPostgres pg, String slot) {
        try (Connection c = pg.connect("payments");
                var s = c.createStatement()) {
            var rs = s.executeQuery(
                    "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '" + slot + "'");
            rs.next();
            return rs.getLong(1) == 1;
        } catch (Exception e) {
            return false;
        }
    }
}
