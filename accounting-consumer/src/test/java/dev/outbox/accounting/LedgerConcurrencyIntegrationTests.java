package dev.outbox.accounting;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.ledger.LedgerService;
import dev.outbox.accounting.ledger.LedgerService.Outcome;
import dev.outbox.contract.EventTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two transactions on one payment at once (a rebalance can hand a partition over while the old owner is still
 * in its transaction): the second waits for the payment's lock and must then see what the first committed. A
 * position read with the snapshot taken before the wait would park version 2 behind a version 1 that is already
 * applied, and the payment would stall for good.
 */
class LedgerConcurrencyIntegrationTests {

    static ConfigurableApplicationContext context;
    static LedgerService ledger;
    static TransactionTemplate transaction;
    static JdbcClient jdbc;

    @BeforeAll
    static void start() {
        String database = EventFixtures.accountingDatabase();
        String topic = "idle-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 1);
        context = AccountingApplication.builder().run(EventFixtures.consumerArgs(database, topic, topic));
        ledger = context.getBean(LedgerService.class);
        transaction = context.getBean(TransactionTemplate.class);
        jdbc = EventFixtures.jdbc(database);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"event by event", "batch"})
    void theSecondTransactionSeesTheVersionTheFirstCommittedWhileItWaited(String path) throws Exception {
        UUID payment = UUID.randomUUID();
        PaymentEvent created = event(payment, 1, EventTypes.PAYMENT_CREATED, "40.00");
        PaymentEvent refunded = event(payment, 2, EventTypes.PAYMENT_REFUNDED, "-15.00");
        Function<PaymentEvent, Outcome> apply = path.equals("batch")
                ? e -> ledger.applyBatch(List.of(e), List.of("t")) ? Outcome.APPLIED : null
                : e -> ledger.apply(e, "t");

        CountDownLatch firstApplied = new CountDownLatch(1);
        CountDownLatch commitFirst = new CountDownLatch(1);
        CompletableFuture<Outcome> first = CompletableFuture.supplyAsync(() -> transaction.execute(tx -> {
            Outcome outcome = apply.apply(created);
            firstApplied.countDown();
            waitFor(commitFirst);
            return outcome;
        }));
        assertThat(firstApplied.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Outcome> second =
                CompletableFuture.supplyAsync(() -> transaction.execute(tx -> apply.apply(refunded)));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.sql("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted""").query(Long.class).single() == 1);
        commitFirst.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.APPLIED);
        assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.APPLIED);
        assertThat(jdbc.sql("SELECT count(*) FROM parked_events WHERE payment_id = :p")
                        .param("p", payment)
                        .query(Long.class)
                        .single())
                .isZero();
        assertThat(jdbc.sql("SELECT sum(amount) FROM ledger_entries WHERE payment_id = :p")
                        .param("p", payment)
                        .query(BigDecimal.class)
                        .single())
                .isEqualByComparingTo("25.00");
        assertThat(jdbc.sql("SELECT last_version FROM payment_positions WHERE payment_id = :p")
                        .param("p", payment)
                        .query(Long.class)
                        .single())
                .isEqualTo(2);
    }

    private static PaymentEvent event(UUID payment, long version, String type, String amount) {
        return new PaymentEvent(
                new dev.outbox.contract.EventEnvelope(
                        UUID.randomUUID(), type, 1, version, java.time.Instant.now(), null),
                payment,
                new BigDecimal(amount),
                "EUR",
                "{}");
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
