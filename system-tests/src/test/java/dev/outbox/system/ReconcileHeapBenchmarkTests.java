package dev.outbox.system;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import dev.outbox.local.LocalCredentials;
import dev.outbox.reconcile.Reconciler;
import dev.outbox.reconcile.Verdict;
import dev.outbox.reconcile.Wire;
import dev.outbox.relay.OutboxRows;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconcile job's memory and load by volume (not part of {@code ./mvnw verify}): one window over 100,000 events,
 * then over 1,000,000, each applied once in a ledger written for it; the heap after a full GC, forced every 250 ms
 * while the window is judged, at its highest; the job thread's CPU and the statements each database ran per 1,000
 * events. Run with a fixed heap:
 * {@code ./mvnw -B -Pbenchmark -pl system-tests verify -Dtest=ReconcileHeapBenchmarkTests -DargLine=-Xmx256m}.
 */
@Tag("benchmark")
class ReconcileHeapBenchmarkTests {

    private static final Wire NOTHING_LOOKED_UP = new Wire() {
        @Override
        public Map<UUID, String> findOnTopic(Collection<Event> events) {
            throw new AssertionError("every event is applied: no look-up");
        }

        @Override
        public Map<UUID, String> findDeadLettered(Collection<Event> events) {
            throw new AssertionError("every event is applied: no look-up");
        }
    };

    @Test
    void heapAfterFullGcStaysFlatFromOneHundredThousandToOneMillionEvents() throws Exception {
        List<String> rows = new ArrayList<>();
        double[] heap = new double[2];
        int[] volumes = {100_000, 1_000_000};
        for (int v = 0; v < volumes.length; v++) {
            int n = volumes[v];
            String payments = SharedInfra.freshDatabase("payments");
            String accounting = SharedInfra.freshDatabase("accounting");
            OutboxRows.migrate(
                    SharedInfra.postgres().jdbcUrl(payments),
                    LocalCredentials.POSTGRES.user(),
                    LocalCredentials.POSTGRES.password());
            org.flywaydb.core.Flyway.configure()
                    .dataSource(
                            SharedInfra.postgres().jdbcUrl(accounting),
                            LocalCredentials.POSTGRES.user(),
                            LocalCredentials.POSTGRES.password())
                    .locations("classpath:db/accounting")
                    .load()
                    .migrate();
            try (com.zaxxer.hikari.HikariDataSource pp = pool(payments);
                    com.zaxxer.hikari.HikariDataSource ap = pool(accounting)) {
                JdbcClient p = JdbcClient.create(pp);
                JdbcClient a = JdbcClient.create(ap);
                fill(p, a, n);
                System.gc();
                long before = usedAfterGc();
                long[] transactions = {commits(p, payments), commits(a, accounting)};

                Reconciler reconciler =
                        new Reconciler(p, a, NOTHING_LOOKED_UP, new Reconciler.Settings("accounting", 1000, 1000));
                AtomicLong highest = new AtomicLong(before);
                Thread sampler = new Thread(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        highest.accumulateAndGet(usedAfterGc(), Math::max);
                        try {
                            Thread.sleep(250);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                sampler.start();
                Reconciler.Window window = reconciler.reconcile(reconciler.oldest(), Long.MAX_VALUE, Instant.now());
                sampler.interrupt();
                sampler.join();
                double seconds = (System.nanoTime() - t0) / 1e9;
                double cpuMs = (threads.getCurrentThreadCpuTime() - cpu0) / 1e6;
                assertThat(window.count(Verdict.APPLIED)).isEqualTo(n);
                assertThat(window.consistent()).isTrue();
                long paymentsStatements = commits(p, payments) - transactions[0] - 1;
                long accountingStatements = commits(a, accounting) - transactions[1] - 1;
                heap[v] = highest.get() / 1048576.0;
                rows.add(String.format(
                        "| %,d | %.1f | %.1f | %.1f | %,.0f | %.1f | %.2f / %.2f |",
                        n,
                        before / 1048576.0,
                        heap[v],
                        seconds,
                        n / seconds,
                        cpuMs * 1000 / n,
                        paymentsStatements * 1000.0 / n,
                        accountingStatements * 1000.0 / n));
            }
        }
        System.out.printf(
                "%n# reconcile job by volume, %s, -Xmx %d MiB%n| events | heap after full GC before (MiB) | highest heap"
                        + " after a full GC while judging (MiB) | s | events/s | job thread CPU ms per 1,000 |"
                        + " statements per 1,000 events, payments / accounting |%n|---:|---:|---:|---:|---:|---:|---|%n"
                        + "%s%nheap 1M / 100k: %.2f%n",
                Instant.now(), Runtime.getRuntime().maxMemory() / 1048576, String.join("\n", rows), heap[1] / heap[0]);
        assertThat(heap[1] / heap[0]).as("heap at 1M / at 100k").isLessThanOrEqualTo(1.2);
    }

    /** n payments, each with its created event, applied once in the ledger and at its version in the positions. */
    private static void fill(JdbcClient payments, JdbcClient accounting, int n) {
        payments.sql("""
                INSERT INTO payments (id, client_id, amount, currency, status, version, created_at, updated_at)
                SELECT md5('p' || i)::uuid, 'bench', 10, 'EUR', 'CREATED', 1, now(), now()
                  FROM generate_series(1, :n) i
                """).param("n", n).update();
        payments.sql("""
                INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                             schema_version, payload, occurred_at)
                SELECT md5('e' || i)::uuid, 'payment', md5('p' || i)::uuid, 1, 'PaymentCreated', 1,
                       '{"amount":"10","currency":"EUR"}', now()
                  FROM generate_series(1, :n) i
                """).param("n", n).update();
        accounting.sql("""
                INSERT INTO ledger_entries (consumer_name, event_id, payment_id, aggregate_version, entry_type, amount,
                                            currency, created_at)
                SELECT 'accounting', md5('e' || i)::uuid, md5('p' || i)::uuid, 1, 'PAYMENT', 10, 'EUR', now()
                  FROM generate_series(1, :n) i
                """).param("n", n).update();
        accounting.sql("""
                INSERT INTO payment_positions (consumer_name, payment_id, last_version, currency, updated_at)
                SELECT 'accounting', md5('p' || i)::uuid, 1, 'EUR', now() FROM generate_series(1, :n) i
                """).param("n", n).update();
        payments.sql("VACUUM ANALYZE").update();
        accounting.sql("VACUUM ANALYZE").update();
    }

    private static com.zaxxer.hikari.HikariDataSource pool(String database) {
        com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource();
        pool.setJdbcUrl(SharedInfra.postgres().jdbcUrl(database));
        pool.setUsername(LocalCredentials.POSTGRES.user());
        pool.setPassword(LocalCredentials.POSTGRES.password());
        pool.setMaximumPoolSize(2);
        return pool;
    }

    /**
     * Transactions committed in the database so far (each of the job's statements is one: auto-commit), once the
     * backends have reported theirs (PostgreSQL flushes them at most every second).
     */
    private static long commits(JdbcClient db, String name) throws InterruptedException {
        Thread.sleep(2_000);
        db.sql("SELECT pg_stat_clear_snapshot()").query().listOfRows();
        return db.sql("SELECT xact_commit FROM pg_stat_database WHERE datname = :name")
                .param("name", name)
                .query(Long.class)
                .single();
    }

    private static long usedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
