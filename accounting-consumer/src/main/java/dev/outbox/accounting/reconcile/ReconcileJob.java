package dev.outbox.accounting.reconcile;

import java.sql.Connection;
import java.sql.SQLException;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.accounting.AccountingProperties;
import dev.outbox.reconcile.KafkaWire;
import dev.outbox.reconcile.ReconcileLoop;
import dev.outbox.reconcile.Reconciler;
import dev.outbox.reconcile.Verdict;
import dev.outbox.security.ErrorText;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Runs {@link ReconcileLoop} every {@code reconcile.window} in this consumer process, as its own read-only roles and
 * Kafka principal; one instance at a time: the one that holds a session advisory lock on the accounting database (on a
 * connection of its own, kept open; a lost connection loses the lock and another instance takes over on its next
 * tick). Its results are metrics and {@link ReconcileAdmin}'s endpoint.
 */
public final class ReconcileJob implements SchedulingConfigurer, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ReconcileJob.class);

    /** The advisory lock key: one job per accounting database. */
    private static final String LEADERSHIP = "SELECT pg_try_advisory_lock(hashtext(:name))";

    private final ReconcileProperties settings;
    private final HikariDataSource payments;
    private final HikariDataSource accounting;
    private final KafkaWire wire;
    private final ReconcileLoop loop;
    private Connection leadership;
    private volatile boolean leader;

    ReconcileJob(
            ReconcileProperties settings,
            AccountingProperties consumer,
            DataSourceProperties accountingDb,
            KafkaProperties kafka,
            MeterRegistry meters) {
        this.settings = settings;
        this.payments = readOnly(
                "reconcile-payments", settings.paymentsUrl(), settings.paymentsUsername(), settings.paymentsPassword());
        this.accounting = readOnly(
                "reconcile-accounting",
                accountingDb.determineUrl(),
                settings.accountingUsername(),
                settings.accountingPassword());
        this.wire = new KafkaWire(
                settings.asReconcilePrincipal(kafka.buildConsumerProperties()),
                consumer.topic(),
                settings.maxScan(),
                settings.scanTimeout());
        this.loop = new ReconcileLoop(
                new Reconciler(
                        JdbcClient.create(payments),
                        JdbcClient.create(accounting),
                        wire,
                        new Reconciler.Settings(consumer.consumerName(), settings.chunkSize(), settings.maxProblems())),
                settings.objective(),
                settings.maxProblems());
        register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::tick, settings.window());
    }

    /** What the job knows, and whether this instance is the one reconciling. */
    public Status status() {
        return new Status(leader, settings.window(), settings.objective(), loop.state());
    }

    /**
     * @param leader    whether this instance holds the job's lock (another instance's results are on that one)
     * @param window    how often a window is judged
     * @param objective the latency objective
     */
    public record Status(
            boolean leader, java.time.Duration window, java.time.Duration objective, ReconcileLoop.State state) {}

    void tick() {
        try {
            leader = lead();
            Reconciler.Window window = leader ? loop.tick() : null;
            if (window != null && !window.consistent()) {
                log.warn(
                        "reconcile: the window of ready_xid [{}, {}) committed before {} is not consistent: {}, {} "
                                + "balance mismatches (GET /admin/reconcile lists them)",
                        window.fromXid(),
                        window.toXid(),
                        window.committedBefore(),
                        window.counts(),
                        window.mismatches().size());
            }
        } catch (RuntimeException e) {
            log.warn("reconcile tick failed: {}", ErrorText.chain(e));
        }
    }

    /** Whether this instance holds the lock, taking it when free. */
    private synchronized boolean lead() {
        try {
            if (leadership != null && leadership.isValid(2)) {
                return true;
            }
            release();
            Connection connection = accounting.getConnection();
            boolean taken = Boolean.TRUE.equals(JdbcClient.create(new SingleConnectionDataSource(connection, true))
                    .sql(LEADERSHIP)
                    .param("name", "payments-outbox reconcile")
                    .query(Boolean.class)
                    .single());
            if (taken) {
                leadership = connection;
            } else {
                connection.close();
            }
            return taken;
        } catch (SQLException e) {
            release();
            log.warn("reconcile: the accounting database is unreachable: {}", ErrorText.chain(e));
            return false;
        }
    }

    private void release() {
        if (leadership != null) {
            try {
                leadership.close();
            } catch (SQLException e) {
                log.debug("reconcile: closing the lock's connection failed", e);
            }
            leadership = null;
        }
    }

    private void register(MeterRegistry meters) {
        Gauge.builder("reconcile_leader", this, job -> job.leader ? 1 : 0)
                .description("1 on the consumer instance that runs the reconcile job")
                .register(meters);
        Gauge.builder(
                        "reconcile_objective_seconds",
                        settings,
                        s -> s.objective().toSeconds())
                .description("the latency objective: events older are judged")
                .register(meters);
        Gauge.builder(
                        "reconcile_last_window_seconds",
                        loop,
                        l -> l.judgedUpTo() == null
                                ? Double.NaN
                                : l.judgedUpTo().toEpochMilli() / 1000.0)
                .description("every event committed before this time (epoch seconds) has been judged")
                .register(meters);
        Gauge.builder(
                        "reconcile_balance_mismatches",
                        loop,
                        l -> l.state().mismatches().size())
                .description("payments whose ledger total differs from amount - refunds, every event applied")
                .register(meters);
        Gauge.builder("reconcile_problems_omitted", loop, l -> l.state().omitted())
                .description("problems found beyond reconcile.max-problems: counted, not listed")
                .register(meters);
        for (Verdict verdict : Verdict.values()) {
            if (verdict == Verdict.IN_FLIGHT) {
                Gauge.builder("reconcile_events", loop, l -> l.state().notJudged())
                        .tag("verdict", verdict.tag())
                        .description("events per verdict in the last window judged; in_flight: not judged yet")
                        .register(meters);
                continue;
            }
            Gauge.builder(
                            "reconcile_events",
                            loop,
                            l -> l.state().lastWindow() == null
                                    ? 0
                                    : l.state().lastWindow().count(verdict))
                    .tag("verdict", verdict.tag())
                    .description("events per verdict in the last window judged; in_flight: not judged yet")
                    .register(meters);
            FunctionCounter.builder(
                            "reconcile_judged_events",
                            loop,
                            l -> l.state().totals().getOrDefault(verdict, 0L))
                    .tag("verdict", verdict.tag())
                    .description("events judged per verdict since this job started")
                    .register(meters);
            if (verdict != Verdict.APPLIED) {
                Gauge.builder("reconcile_open_problems", loop, l -> l.state().open(verdict))
                        .tag("verdict", verdict.tag())
                        .description("listed problems per verdict, judged again every window until resolved")
                        .register(meters);
            }
        }
    }

    private static HikariDataSource readOnly(String name, String url, String username, String password) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName(name);
        pool.setJdbcUrl(url);
        pool.setUsername(username);
        pool.setPassword(password);
        pool.setReadOnly(true);
        pool.setMaximumPoolSize(2);
        pool.setMinimumIdle(0);
        pool.setConnectionTimeout(5_000);
        pool.setInitializationFailTimeout(-1);
        pool.addDataSourceProperty("connectTimeout", "5");
        pool.addDataSourceProperty("socketTimeout", "120");
        return pool;
    }

    @Override
    public void destroy() {
        synchronized (this) {
            release();
        }
        wire.close();
        payments.close();
        accounting.close();
    }
}
