package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.outbox.reconcile.InvariantChecker;
import dev.outbox.system.PipelineHarness.Component;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The soak command (not part of {@code ./mvnw verify}): steady HTTP load for N minutes while a random component
 * is killed every M seconds and started again, then drain and check the invariant. Run it with
 * {@code ./mvnw -B -Psoak -pl accounting-consumer -am verify -Dsoak.minutes=5 -Dsoak.killEverySeconds=20}.
 */
@Tag("soak")
class SoakTests {

    @Test
    void killRandomComponentsUnderLoadThenCheckTheInvariant() throws Exception {
        int minutes = Integer.getInteger("soak.minutes", 2);
        int killEvery = Integer.getInteger("soak.killEverySeconds", 20);
        String mode = System.getProperty("soak.relayMode", "cdc");
        long seed = Long.getLong("soak.seed", System.nanoTime());
        Random random = new Random(seed);
        try (PipelineHarness pipeline = new PipelineHarness(mode)) {
            AtomicBoolean loading = new AtomicBoolean(true);
            AtomicInteger created = new AtomicInteger();
            AtomicInteger refunded = new AtomicInteger();
            AtomicInteger clientRetries = new AtomicInteger();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            for (int t = 0; t < 4; t++) {
                int thread = t;
                clients.submit(() -> {
                    for (int i = 0; loading.get(); i++) {
                        String key = "soak-" + thread + "-" + i;
                        String id = post(
                                pipeline.apiUrl() + "/payments",
                                key,
                                "{\"amount\":\"20.00\",\"currency\":\"EUR\"}",
                                clientRetries,
                                loading);
                        if (id == null) {
                            return;
                        }
                        created.incrementAndGet();
                        if (i % 10 == 0
                                && post(
                                                pipeline.apiUrl() + "/payments/" + id + "/refunds",
                                                key + "-r",
                                                "{\"amount\":\"5.00\"}",
                                                clientRetries,
                                                loading)
                                        != null) {
                            refunded.incrementAndGet();
                        }
                    }
                });
            }
            ReconcileWatch reconcile = new ReconcileWatch(pipeline.consumerUrl());
            List<String> recoveries = new ArrayList<>();
            long end = System.nanoTime() + Duration.ofMinutes(minutes).toNanos();
            Component[] victims = Arrays.stream(System.getProperty("soak.victims", "API,RELAY,CONSUMER,KAFKA,POSTGRES")
                            .split(","))
                    .map(Component::valueOf)
                    .toArray(Component[]::new);
            long[] wire = pipeline.wire();
            String previous = null;
            while (System.nanoTime() < end) {
                Thread.sleep(killEvery * 1000L);
                long[] now = pipeline.wire();
                if (previous != null) {
                    recoveries.add(previous + ", " + duplicatesBetween(wire, now) + " duplicates on the wire until the "
                            + "next kill");
                }
                wire = now;
                Component victim = victims[random.nextInt(victims.length)];
                // a relay streams again when another walsender than the killed relay's streams its slot
                int streamer = victim == Component.RELAY ? pipeline.slotStreamer() : 0;
                long t0 = System.nanoTime();
                if (victim == Component.RELAY && pipeline.withStandby()) {
                    // the leader SIGKILLed: the standby takes the slot over; the killed one comes back as the standby
                    int killed = pipeline.killRelayLeader();
                    await().atMost(Duration.ofMinutes(3))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> streamsAgain(pipeline, streamer));
                    previous = "RELAY leader " + killed + ": kill -> standby streaming " + millisSince(t0) + " ms";
                    if (killed >= 0) {
                        pipeline.startRelay(killed);
                    }
                    continue;
                }
                pipeline.kill(victim);
                if (victim == Component.RELAY && !mode.equals("polling")) {
                    // no health request runs beside the relay's start: the stream is timed first, then the health
                    pipeline.launch(victim);
                    await().atMost(Duration.ofMinutes(3))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> streamsAgain(pipeline, streamer));
                    long streaming = millisSince(t0);
                    String cpu = cpuSoFar(pipeline.pid(victim));
                    pipeline.awaitHealthy(victim);
                    previous = victim + ": kill -> streaming " + streaming + " ms on " + cpu + ", -> healthy "
                            + millisSince(t0) + " ms (JVM and Spring: "
                            + pipeline.relayStartupSeconds() + " s)";
                } else {
                    pipeline.start(victim);
                    previous = victim + ": kill -> healthy " + millisSince(t0) + " ms";
                }
            }
            loading.set(false);
            java.time.Instant loadStopped = java.time.Instant.now();
            clients.shutdown();
            clients.awaitTermination(2, java.util.concurrent.TimeUnit.MINUTES);
            // under load a second's worth of events always waits for the next horizon: caught up means, once the
            // load stopped, nothing pending
            if (previous != null) {
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> pipeline.check(false).pending() == 0);
                recoveries.add(previous + ", " + duplicatesBetween(wire, pipeline.wire())
                        + " duplicates on the wire until the end");
            }

            long drainStart = System.nanoTime();
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> pipeline.check(false).holds());
            InvariantChecker.Report report = pipeline.check(true);
            System.out.printf(
                    "%nSOAK %d min, kill every %d s, relay %s%s, seed %d%n  payments created: %d (refunds %d), "
                            + "client retries: %d%n  events on the wire: %d, duplicates on the wire: %d, redeliveries ignored by the "
                            + "inbox: %d%n  lost: %d, "
                            + "duplicated effects: %d%n  drained in %d ms after the load stopped%n  kills and recovery "
                            + "(kill -> healthy): %n    %s%n  %s%n",
                    minutes,
                    killEvery,
                    mode,
                    pipeline.withStandby() ? " with a standby" : "",
                    seed,
                    created.get(),
                    refunded.get(),
                    clientRetries.get(),
                    report.wireRecords(),
                    report.wireDuplicates(),
                    report.ignoredByInbox(),
                    report.missingEffects(),
                    report.duplicateEffects(),
                    Duration.ofNanos(System.nanoTime() - drainStart).toMillis(),
                    String.join("\n    ", recoveries),
                    report);
            assertThat(report.holds()).as(report.toString()).isTrue();
            assertThat(report.payments()).isEqualTo(created.get());

            // the reconcile job, the same judgement running in the consumer throughout: every window it closed
            // under load and kills consistent, and, one objective after the load stopped, everything judged
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> reconcile.judgedAfter(loadStopped));
            reconcile.close();
            System.out.printf("  reconcile job: %s%n", reconcile);
            assertThat(reconcile.windows()).as(reconcile.toString()).isPositive();
            assertThat(reconcile.inconsistent()).as(reconcile.toString()).isEmpty();
        }
    }

    /**
     * A process's CPU so far ({@link ProcessStats}, from /proc): the whole process's, its main thread's (Java's main
     * thread keeps the launcher's name, {@code java}) and its JIT compilers' (C1 and C2, folded to one name).
     */
    private static String cpuSoFar(long pid) {
        Map<String, Double> threads = ProcessStats.threadCpuSeconds(pid);
        return String.format(
                "%.1f CPU-s (main thread %.1f, JIT compilers %.1f)",
                ProcessStats.cpuSeconds(pid),
                threads.getOrDefault("java", 0.0),
                threads.getOrDefault("CN CompilerThre", 0.0));
    }

    private static long millisSince(long nanoTime) {
        return Duration.ofNanos(System.nanoTime() - nanoTime).toMillis();
    }

    private static boolean streamsAgain(PipelineHarness pipeline, int killedStreamer) {
        int now = pipeline.slotStreamer();
        return now != 0 && now != killedStreamer;
    }

    /**
     * Reads the consumer's {@code /admin/reconcile} every second (nothing while the consumer is down) and keeps every
     * window it saw judged: its range and whether it was consistent.
     */
    private static final class ReconcileWatch implements AutoCloseable {
        private final tools.jackson.databind.json.JsonMapper json =
                tools.jackson.databind.json.JsonMapper.builder().build();
        private final HttpClient http = HttpClient.newHttpClient();
        private final String url;
        private final java.util.Map<String, String> windows = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.concurrent.ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor();
        private volatile java.time.Instant judgedUpTo = java.time.Instant.EPOCH;

        ReconcileWatch(String consumerUrl) {
            this.url = consumerUrl + "/admin/reconcile";
            timer.scheduleWithFixedDelay(this::look, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
        }

        private void look() {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer local-admin-token")
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                tools.jackson.databind.JsonNode window =
                        json.readTree(r.body()).path("state").path("lastWindow");
                if (r.statusCode() != 200 || !window.isObject()) {
                    return;
                }
                boolean broken = window.path("mismatches").size() > 0;
                for (String verdict : List.of("MISSING_ON_TOPIC", "ON_TOPIC_NOT_APPLIED", "APPLIED_MORE_THAN_ONCE")) {
                    broken |= window.path("counts").path(verdict).asLong() > 0;
                }
                windows.put(
                        window.path("fromXid").asLong() + "-"
                                + window.path("toXid").asLong(),
                        broken ? window.toString() : "consistent");
                judgedUpTo =
                        java.time.Instant.parse(window.path("committedBefore").asString());
            } catch (Exception e) {
                // the consumer is down or restarting: the next look
            }
        }

        boolean judgedAfter(java.time.Instant instant) {
            return judgedUpTo.isAfter(instant);
        }

        int windows() {
            return windows.size();
        }

        List<String> inconsistent() {
            return windows.values().stream()
                    .filter(w -> !w.equals("consistent"))
                    .toList();
        }

        @Override
        public void close() {
            timer.shutdownNow();
        }

        @Override
        public String toString() {
            return windows.size() + " windows judged (" + inconsistent().size() + " inconsistent), every event "
                    + "committed before " + judgedUpTo + " judged";
        }
    }

    /** Records sent more than once between two looks at the wire. */
    private static long duplicatesBetween(long[] before, long[] after) {
        return (after[0] - after[1]) - (before[0] - before[1]);
    }

    /** A client that retries the same request with the same key until it is answered; returns the new id. */
    private static String post(String url, String key, String body, AtomicInteger retries, AtomicBoolean loading) {
        HttpClient http = HttpClient.newHttpClient();
        while (true) {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer local-key-client-a")
                                .header("Idempotency-Key", key)
                                .header("Content-Type", "application/json")
                                .timeout(Duration.ofSeconds(10))
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 201) {
                    int i = r.body().indexOf("\"id\":\"");
                    return r.body().substring(i + 6, i + 42);
                }
                if (r.statusCode() == 409 && url.endsWith("/refunds")) {
                    return null;
                }
            } catch (Exception e) {
                // the API is down or restarting: same key, again
            }
            retries.incrementAndGet();
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return null;
            }
            if (!loading.get() && retries.get() > 1_000_000) {
                return null;
            }
        }
    }
}
