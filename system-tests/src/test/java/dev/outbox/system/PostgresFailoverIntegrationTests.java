package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.reconcile.InvariantChecker;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayProcess;
import dev.outbox.testing.Ports;
import dev.outbox.testing.ReplicatedPostgres;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TopicReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.util.ContentCachingResponseWrapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL primary failover under HTTP load (issue 16). A primary and a streaming standby, both real
 * PostgreSQL; the relay's slot is a failover slot the standby synchronizes. The API, the relay (its JDBC pool, its
 * leadership lock and the Debezium engine) and the consumer reach "the primary" through a multi-host URL. The
 * primary's postmaster is SIGKILLed while clients post payments; the standby is promoted; nobody reconfigures
 * anything. Clients retry whatever got no answer with the same Idempotency-Key.
 *
 * <p>Afterwards, on the promoted standby: one payment per key, every payment a client was told about exists, every
 * event has exactly one ledger effect and none without an event, nothing pending. In cdc mode the relay resumed
 * from the synchronized slot (the safety net published nothing). Printed: kill -> first event after it, and what
 * became of the requests whose commit was in flight at the kill.
 */
class PostgresFailoverIntegrationTests {

    private static final int CLIENTS = 4;
    /** Payments the load creates before the kill sequence starts. */
    private static final int BEFORE_KILL = 150;
    /** Payments the load creates after the promotion before it stops. */
    private static final int AFTER_PROMOTION = 300;
    /** A bound on the load, whatever happens. */
    private static final int MAX_PER_CLIENT = 5_000;

    private static final Pattern PAYMENT_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

    /**
     * The three failovers run at once, each on its own primary and standby and with its own API, relay and consumer,
     * sharing the broker: started together before the tests, each test waits for its own and reports its outcome.
     * Nothing in them is timed, so sharing two cores slows them without changing what they assert.
     */
    private static final Map<String, CompletableFuture<Void>> RUNS = new ConcurrentHashMap<>();

    private static final ExecutorService FAILOVERS = Executors.newFixedThreadPool(3);

    @BeforeAll
    static void startTheThreeFailovers() {
        run("cdc", true);
        run("cdc", false);
        run("polling", true);
    }

    /**
     * An application of this JVM, started and closed one at a time: the three variants run at once, and Spring Boot
     * sets up and tears down logging per JVM (two starts at once failed in logback's reset).
     */
    private record InProcess(ConfigurableApplicationContext context) implements AutoCloseable {

        private static final Object ONE_AT_A_TIME = new Object();

        InProcess(SpringApplicationBuilder application, String... args) {
            this(start(application, args));
        }

        private static ConfigurableApplicationContext start(SpringApplicationBuilder application, String... args) {
            synchronized (ONE_AT_A_TIME) {
                return application.run(args);
            }
        }

        @Override
        public void close() {
            synchronized (ONE_AT_A_TIME) {
                context.close();
            }
        }
    }

    private static void run(String mode, boolean slotSync) {
        RUNS.put(
                mode + slotSync,
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                new PostgresFailoverIntegrationTests().failoverUnderLoad(mode, slotSync);
                            } catch (Exception e) {
                                throw new CompletionException(e);
                            }
                        },
                        FAILOVERS));
    }

    @AfterAll
    static void stopTheFailovers() {
        FAILOVERS.shutdownNow();
    }

    private static void outcome(String mode, boolean slotSync) throws Exception {
        try {
            RUNS.get(mode + slotSync).get(15, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
            if (cause instanceof Error error) {
                throw error;
            }
            throw (Exception) cause;
        }
    }

    @Test
    void cdcRelayResumesFromTheSynchronizedSlotAfterFailover() throws Exception {
        outcome("cdc", true);
    }

    /**
     * A standby that does not synchronize slots, so the promoted standby has no slot. The relay does not refuse to
     * start (offset.mismatch.strategy=trust_slot): it creates a new slot and streams from there; what was committed
     * between its last offset and the new slot is published by the safety net after its grace period.
     */
    @Test
    void cdcRelayCarriesOnWhenThePromotedStandbyHasNoSlot() throws Exception {
        outcome("cdc", false);
    }

    /** The same failover in polling mode: the claims follow the multi-host URL to the promoted standby. */
    @Test
    void pollingRelayFollowsThePromotedStandby() throws Exception {
        outcome("polling", true);
    }

    private void failoverUnderLoad(String mode, boolean slotSync) throws Exception {
        String suffix = "fo" + mode + Long.toHexString(System.nanoTime());
        String label = mode + (slotSync ? "" : ", standby without the slot");
        String topic = "t-" + suffix + ".payment.events";
        String slot = "slot_" + suffix;
        Map<String, Object> kafka = SharedInfra.kafka().adminClientProperties();
        try (ReplicatedPostgres pg = ReplicatedPostgres.start(true, slotSync)) {
            pg.createDatabase("payments").createDatabase("accounting");
            OutboxRows.migrate(
                    pg.jdbcUrl("payments"), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
            Map<String, String> relayEnv = new HashMap<>();
            relayEnv.put("RELAY_MODE", mode);
            // no host, no port: the list of servers that may be the primary
            relayEnv.put("RELAY_DB_HOSTS", pg.hosts());
            relayEnv.put("RELAY_DB_NAME", "payments");
            relayEnv.put("KAFKA_BOOTSTRAP_SERVERS", SharedInfra.kafka().bootstrapServers());
            relayEnv.put("RELAY_TOPIC_PATTERN", "t-" + suffix + ".{aggregateType}.events");
            relayEnv.put("RELAY_CDC_SLOT", slot);
            relayEnv.put("RELAY_CDC_OFFSETS_TOPIC", "offsets-" + suffix);
            relayEnv.put("RELAY_SAFETY_NET_GRACE", slotSync ? "60s" : "10s");
            relayEnv.put("RELAY_SAFETY_NET_INTERVAL", slotSync ? "10s" : "2s");
            relayEnv.put("RELAY_HTTP_PORT", String.valueOf(Ports.free()));
            // the relay in its own JVM, as it runs in production (and Debezium's JMX names are per JVM)
            try (RelayProcess relay = new RelayProcess(relayEnv, suffix).start();
                    InProcess api = new InProcess(
                            new SpringApplicationBuilder(PaymentsApplication.class, HoldResponse.class),
                            "--server.port=0",
                            "--management.server.port=0",
                            "--spring.datasource.url=" + pg.jdbcUrl("payments"),
                            "--spring.datasource.hikari.connection-timeout=2000");
                    InProcess consumer = new InProcess(
                            AccountingApplication.builder(),
                            "--server.port=0",
                            "--management.server.port=0",
                            "--spring.datasource.url=" + pg.jdbcUrl("accounting"),
                            "--spring.datasource.hikari.connection-timeout=2000",
                            "--spring.kafka.bootstrap-servers="
                                    + SharedInfra.kafka().bootstrapServers(),
                            "--spring.kafka.consumer.group-id=" + suffix,
                            "--accounting.topic=" + topic)) {
                HoldResponse hold = api.context().getBean(HoldResponse.class);
                String base =
                        "http://127.0.0.1:" + api.context().getEnvironment().getProperty("local.server.port");
                Clients clients = new Clients(base, suffix);
                int warmUp = 0;
                if (mode.equals("cdc")) {
                    await().atMost(Duration.ofSeconds(90)).until(() -> slotActive(pg, slot));
                }
                if (mode.equals("cdc") && slotSync) {
                    // The standby keeps its copy of a new slot temporary until the primary's slot has moved past the
                    // position the standby reserved for it, i.e. until the relay confirmed changes written after the
                    // copy: a trickle of payments, until the copy is persistent. Only then does a failover keep it.
                    Instant syncing = Instant.now();
                    while (!pg.slotSynced(slot)) {
                        assertThat(Duration.between(syncing, Instant.now()))
                                .as("the standby synchronized the slot")
                                .isLessThan(Duration.ofMinutes(2));
                        clients.postUntilCreated(suffix + "-warm-up-" + warmUp++);
                        Thread.sleep(250);
                    }
                    System.out.println("failover[" + label + "]: slot synchronized to the standby "
                            + Duration.between(syncing, Instant.now()).toMillis() + " ms after it was active ("
                            + warmUp + " payments meanwhile)");
                }
                int beforeLoad = clients.created.get();

                // The clients post without a pause until well after the promotion, so requests are in flight at the
                // kill whatever the machine's speed (a fixed number of requests may all be answered before it).
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger issued = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
                List<Future<?>> load = new ArrayList<>();
                try {
                    for (int t = 0; t < CLIENTS; t++) {
                        int thread = t;
                        load.add(pool.submit(() -> {
                            for (int i = 0; !stop.get() && i < MAX_PER_CLIENT; i++) {
                                issued.incrementAndGet();
                                clients.postUntilCreated(suffix + "-" + thread + "-" + i);
                            }
                        }));
                    }
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> clients.created.get() >= beforeLoad + BEFORE_KILL);

                    // A request whose commit reached the standby and whose answer never reached the client: the API
                    // holds its response after the commit; the client gives up waiting.
                    String heldKey = suffix + "-held-after-commit";
                    CompletableFuture<Clients.Answer> heldFirst =
                            CompletableFuture.supplyAsync(() -> clients.post(heldKey, Duration.ofSeconds(5)));
                    assertThat(hold.committed.await(30, TimeUnit.SECONDS))
                            .as("the held request committed")
                            .isTrue();
                    // A request whose commit is in flight at the kill: the primary's WAL sender is paused, so the
                    // commit
                    // is written on the primary and waits there for the standby (synchronous replication).
                    pg.pauseWalSender();
                    String inFlightKey = suffix + "-in-flight";
                    CompletableFuture<Clients.Answer> inFlightFirst =
                            CompletableFuture.supplyAsync(() -> clients.post(inFlightKey, Duration.ofSeconds(30)));
                    await().atMost(Duration.ofSeconds(10)).until(() -> waitingForStandby(pg) > 0);
                    Thread.sleep(500);

                    Instant killed = pg.killPrimary();
                    Instant down = Instant.now();
                    pg.killPausedWalSender();
                    pg.promoteStandby();
                    Instant promoted = Instant.now();

                    Clients.Answer heldAnswer = heldFirst.get();
                    Clients.Answer inFlightAnswer = inFlightFirst.get();
                    Clients.Answer heldRetry = clients.retryUntilCreated(heldKey);
                    Clients.Answer inFlightRetry = clients.retryUntilCreated(inFlightKey);
                    hold.release.countDown();
                    int afterPromotion = clients.created.get();
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> clients.created.get() >= afterPromotion + AFTER_PROMOTION
                                    || clients.failure.get() != null);
                    stop.set(true);
                    for (Future<?> f : load) {
                        f.get();
                    }
                    int expected = warmUp + issued.get() + 2;
                    assertThat(clients.failure.get())
                            .as("every client got an answer")
                            .isNull();

                    await().atMost(Duration.ofSeconds(180))
                            .pollInterval(Duration.ofSeconds(1))
                            .ignoreExceptions()
                            .until(() -> {
                                try (Connection p = pg.connect("payments");
                                        Connection a = pg.connect("accounting")) {
                                    return InvariantChecker.check(p, a, "accounting", null, null)
                                            .holds();
                                }
                            });
                    Instant drained = Instant.now();

                    try (Connection p = pg.connect("payments");
                            Connection a = pg.connect("accounting")) {
                        InvariantChecker.Report report = InvariantChecker.check(p, a, "accounting", kafka, topic);
                        List<ConsumerRecord<String, String>> wire =
                                TopicReader.toEnd(kafka, topic, Duration.ofSeconds(60));
                        Long firstAfterKill = wire.stream()
                                .map(ConsumerRecord::timestamp)
                                .filter(ts -> ts >= killed.toEpochMilli())
                                .min(Long::compare)
                                .orElse(null);
                        Long firstNewEvent = wire.stream()
                                .filter(r -> Instant.parse(TopicReader.header(r, MessageHeaders.OCCURRED_AT))
                                        .isAfter(promoted))
                                .map(ConsumerRecord::timestamp)
                                .min(Long::compare)
                                .orElse(null);
                        long keys = count(p, "SELECT count(*) FROM idempotency_keys");
                        long knownToClients = clients.paymentIds.size();
                        long knownAndPresent = count(
                                p,
                                "SELECT count(*) FROM payments WHERE id::text IN ('"
                                        + String.join("','", clients.paymentIds) + "')");
                        String slotOnNewPrimary = mode.equals("cdc") ? slotState(p, slot) : "n/a";
                        double safetyNet = relay.meter("outbox_polling_claimed_total", "role", "safety-net");

                        System.out.println("failover[" + label + "]: " + report);
                        System.out.println("failover[" + label + "]: SIGKILL -> postmaster gone "
                                + Duration.between(killed, down).toMillis() + " ms, -> standby promoted "
                                + Duration.between(killed, promoted).toMillis() + " ms, -> first record on the wire "
                                + (firstAfterKill == null ? "none" : (firstAfterKill - killed.toEpochMilli()) + " ms")
                                + ", -> first event written on the new primary on the wire "
                                + (firstNewEvent == null ? "none" : (firstNewEvent - killed.toEpochMilli()) + " ms")
                                + ", -> drained (invariant holds) "
                                + Duration.between(killed, drained).toMillis() + " ms");
                        System.out.println(
                                "failover[" + label + "]: committed and replicated, answer held: first attempt "
                                        + heldAnswer + ", retry " + heldRetry
                                        + "; commit in flight (not replicated) at the kill:"
                                        + " first attempt " + inFlightAnswer + ", retry " + inFlightRetry);
                        System.out.println("failover[" + label + "]: requests failed at the kill and retried with the"
                                + " same key: " + clients.retriedKeys.size() + " keys (" + clients.retries
                                + " retries); their final answer replayed the stored response: "
                                + clients.replayedAfterFailure.size() + ", created afresh: "
                                + (clients.retriedKeys.size() - clients.replayedAfterFailure.size())
                                + "; slot on the new primary: " + slotOnNewPrimary
                                + "; rows published by the safety net: " + safetyNet);

                        assertThat(report.holds()).as(report.toString()).isTrue();
                        assertThat(report.payments()).as("one payment per key").isEqualTo(expected);
                        assertThat(keys).as("one idempotency record per key").isEqualTo(expected);
                        assertThat(report.events()).isEqualTo(expected);
                        assertThat(report.duplicateEffects()).isZero();
                        assertThat(report.missingEffects()).isZero();
                        assertThat(report.orphanEffects())
                                .as("no event of a payment the new primary lacks")
                                .isZero();
                        assertThat(knownToClients)
                                .as("each key was answered with one payment id")
                                .isEqualTo(expected);
                        assertThat(knownAndPresent)
                                .as("every payment a client was told about survived the failover")
                                .isEqualTo(knownToClients);
                        assertThat(clients.retriedKeys)
                                .as("the kill interrupted requests in flight")
                                .isNotEmpty();
                        assertThat(heldAnswer.status())
                                .as("the held request's client gave up waiting")
                                .isEqualTo(-1);
                        assertThat(heldRetry.replayed())
                                .as("a commit the standby had is replayed to the retry")
                                .isTrue();
                        assertThat(inFlightAnswer.status())
                                .as("a commit in flight at the kill is not confirmed")
                                .isNotEqualTo(201);
                        assertThat(inFlightRetry.replayed())
                                .as("a commit in flight at the kill is created afresh by the retry")
                                .isFalse();
                        assertThat(firstNewEvent)
                                .as("events written after the failover were published")
                                .isNotNull();
                        if (mode.equals("cdc") && !slotSync) {
                            assertThat(slotOnNewPrimary)
                                    .as("the relay created a new failover slot on the promoted standby")
                                    .isEqualTo("active=t failover=true synced=false");
                            assertThat(safetyNet)
                                    .as("the rows committed before the new slot existed, published by the safety net")
                                    .isPositive();
                        }
                        if (mode.equals("cdc") && slotSync) {
                            assertThat(safetyNet)
                                    .as(
                                            "the stream resumed from the synchronized slot; the safety net had nothing to do")
                                    .isZero();
                            assertThat(slotOnNewPrimary).startsWith("active=t");
                        }
                    }
                } finally {
                    // a failed step must not leave the clients posting into the next tests
                    stop.set(true);
                    pool.shutdownNow();
                }
            }
        }
    }

    /** Clients that retry with the same Idempotency-Key until they get their payment. */
    private static final class Clients {
        private final String base;
        private final HttpClient http = HttpClient.newHttpClient();
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger retries = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicReference<Instant> killedAt = new AtomicReference<>();
        final Set<String> paymentIds = ConcurrentHashMap.newKeySet();
        final Set<String> retriedKeys = ConcurrentHashMap.newKeySet();
        final Set<String> replayedAfterFailure = ConcurrentHashMap.newKeySet();

        Clients(String base, String suffix) {
            this.base = base;
        }

        /** One attempt's outcome: the status (-1 for no answer), whether it was a replay, the payment id. */
        record Answer(int status, boolean replayed, String id) {}

        /** One attempt. */
        Answer post(String key, Duration timeout) {
            try {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/payments"))
                                .header("Authorization", "Bearer local-key-client-a")
                                .header("Idempotency-Key", key)
                                .header("Content-Type", "application/json")
                                .timeout(timeout)
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"amount\":\"12.34\",\"currency\":\"EUR\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                Matcher id = PAYMENT_ID.matcher(response.body());
                return new Answer(
                        response.statusCode(),
                        "true"
                                .equals(response.headers()
                                        .firstValue("Idempotent-Replayed")
                                        .orElse(null)),
                        response.statusCode() == 201 && id.find() ? id.group(1) : null);
            } catch (Exception e) {
                return new Answer(-1, false, null);
            }
        }

        /** Attempts until a 201, recording the payment id as {@link #postUntilCreated} does. */
        Answer retryUntilCreated(String key) throws InterruptedException {
            for (int attempt = 0; attempt < 600; attempt++) {
                Answer a = post(key, Duration.ofSeconds(10));
                if (a.status() == 201) {
                    paymentIds.add(a.id());
                    created.incrementAndGet();
                    return a;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("no payment for " + key);
        }

        void postUntilCreated(String key) {
            boolean failedBefore = false;
            for (int attempt = 0; attempt < 600; attempt++) {
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
                        Matcher id = PAYMENT_ID.matcher(response.body());
                        if (!id.find()) {
                            failure.compareAndSet(null, new AssertionError("no id in " + response.body()));
                            return;
                        }
                        if (!paymentIds.add(id.group(1))) {
                            failure.compareAndSet(
                                    null, new AssertionError("payment id answered twice: " + id.group(1)));
                        }
                        if (failedBefore
                                && "true"
                                        .equals(response.headers()
                                                .firstValue("Idempotent-Replayed")
                                                .orElse(null))) {
                            replayedAfterFailure.add(key);
                        }
                        created.incrementAndGet();
                        return;
                    }
                    if (response.statusCode() == 422) {
                        failure.compareAndSet(
                                null, new AssertionError("422 for a retry of the same request: " + response.body()));
                        return;
                    }
                } catch (Exception e) {
                    // no answer: the database (or the API's connection to it) went away; retry with the same key
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                failedBefore = true;
                retriedKeys.add(key);
                retries.incrementAndGet();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            failure.compareAndSet(null, new AssertionError("no payment for " + key));
        }
    }

    /** Backends of the primary whose commit waits for the standby (synchronous replication). */
    private static long waitingForStandby(ReplicatedPostgres pg) throws SQLException {
        try (Connection c = pg.primary().connect("postgres")) {
            return count(c, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
        }
    }

    /**
     * A test bean for the API (outside its scanned packages): a {@code POST /payments} whose Idempotency-Key ends in
     * {@code -held-after-commit} and that succeeded stops after its transaction committed and before a byte of its
     * response left, until the test releases it.
     */
    @Configuration(proxyBeanMethods = false)
    static class HoldResponse {
        final CountDownLatch committed = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Bean
        FilterRegistrationBean<Filter> holdResponseAfterCommit() {
            Filter filter = (request, response, chain) -> {
                HttpServletRequest http = (HttpServletRequest) request;
                String key = http.getHeader("Idempotency-Key");
                if (key == null || !key.endsWith("-held-after-commit") || committed.getCount() == 0) {
                    chain.doFilter(request, response);
                    return;
                }
                ContentCachingResponseWrapper held = new ContentCachingResponseWrapper((HttpServletResponse) response);
                chain.doFilter(request, held);
                if (held.getStatus() == 201) {
                    committed.countDown();
                    try {
                        release.await(120, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                held.copyBodyToResponse();
            };
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            return registration;
        }
    }

    private static boolean slotActive(ReplicatedPostgres pg, String slot) {
        try (Connection c = pg.primary().connect("payments");
                var s = c.createStatement();
                var rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE active AND failover"
                        + " AND slot_name = '" + slot + "'")) {
            rs.next();
            return rs.getLong(1) == 1;
        } catch (SQLException e) {
            return false;
        }
    }

    private static String slotState(Connection c, String slot) throws SQLException {
        try (var s = c.createStatement();
                var rs = s.executeQuery("SELECT active, failover, synced FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'")) {
            return rs.next()
                    ? "active=" + (rs.getBoolean(1) ? "t" : "f") + " failover=" + rs.getBoolean(2) + " synced="
                            + rs.getBoolean(3)
                    : "missing";
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (var s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
