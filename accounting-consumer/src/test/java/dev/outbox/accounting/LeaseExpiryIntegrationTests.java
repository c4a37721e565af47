package dev.outbox.accounting;

import static dev.outbox.accounting.EventFixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.infra.Ports;
import dev.outbox.infra.PostgresServer;
import dev.outbox.infra.SharedInfra;
import dev.outbox.relay.RelayApplication;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Article test 9 with test 4's duplicate: worker A claims a row, publishes it, and stalls past its lease before
 * marking it. The polling relay recovers the expired lease and publishes the same event again; A's late mark
 * is refused (lease lost), and the consumer applies the event once.
 */
class LeaseExpiryIntegrationTests {

    static final String CLAIM_AS_A = """
            UPDATE outbox_messages SET lock_id = :worker, locked_until = now() + interval '1 second',
                   attempts = attempts + 1
             WHERE id = :id AND published_at IS NULL""";

    static final String MARK_AS_A = """
            UPDATE outbox_messages SET published_at = now(), lock_id = NULL, locked_until = NULL
             WHERE id = :id AND lock_id = :worker AND published_at IS NULL""";

    @Test
    void anExpiredLeaseIsRecoveredAndTheEventStillHasOneEffect() throws Exception {
        String suffix = "lease" + Long.toHexString(System.nanoTime());
        String topic = "t-" + suffix + ".payment.events";
        String payments = SharedInfra.freshDatabase("payments");
        Flyway.configure().dataSource(SharedInfra.postgres().jdbcUrl(payments), PostgresServer.USER,
                PostgresServer.PASSWORD).locations("classpath:db/payments").load().migrate();
        JdbcClient outbox = EventFixtures.jdbc(payments);
        String accounting = EventFixtures.accountingDatabase();
        JdbcClient ledger = EventFixtures.jdbc(accounting);
        EventFixtures.createTopic(topic, 3);

        UUID payment = UUID.randomUUID();
        Event event = Event.created(payment, "15.00", "EUR");
        outbox.sql("""
                INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                             schema_version, payload, occurred_at)
                VALUES (:id, 'payment', :aggregate, 1, 'PaymentCreated', 1, CAST(:payload AS jsonb), now())""")
                .param("id", event.id()).param("aggregate", payment).param("payload", event.payload()).update();

        try (ConfigurableApplicationContext consumer = AccountingApplication.builder()
                .run(EventFixtures.consumerArgs(accounting, topic, "lease-" + suffix))) {
            UUID workerA = UUID.randomUUID();
            assertThat(outbox.sql(CLAIM_AS_A).param("worker", workerA).param("id", event.id()).update()).isOne();
            try (KafkaProducer<String, String> producer = EventFixtures.producer()) {
                producer.send(record(topic, null, event)).get();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> entries(ledger, payment) == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> outbox.sql(
                    "SELECT locked_until < now() FROM outbox_messages WHERE id = :id").param("id", event.id())
                    .query(Boolean.class).single());

            try (ConfigurableApplicationContext relay = RelayApplication.builder().run(
                    "--server.port=" + Ports.free(),
                    "--relay.mode=polling",
                    "--relay.db.port=" + SharedInfra.postgres().port(),
                    "--relay.db.name=" + payments,
                    "--relay.kafka.bootstrap-servers=" + SharedInfra.kafka().bootstrapServers(),
                    "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events")) {
                await().atMost(Duration.ofSeconds(30)).until(() -> outbox.sql(
                        "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL")
                        .query(Long.class).single() == 1);
                assertThat(relay.getBean(MeterRegistry.class).find("outbox_polling_expired_leases_recovered")
                        .counter().count()).isEqualTo(1);
            }
            assertThat(outbox.sql(MARK_AS_A).param("id", event.id()).param("worker", workerA).update())
                    .as("the stalled worker's late mark is refused").isZero();
            assertThat(outbox.sql("SELECT attempts FROM outbox_messages WHERE id = :id").param("id", event.id())
                    .query(Integer.class).single()).isEqualTo(2);

            await().atMost(Duration.ofSeconds(30)).until(() -> {
                var c = consumer.getBean(MeterRegistry.class).find("accounting_events").tag("outcome", "duplicate")
                        .counter();
                return c != null && c.count() >= 1;
            });
            assertThat(entries(ledger, payment)).isEqualTo(1);
        }
    }

    private static long entries(JdbcClient ledger, UUID payment) {
        return ledger.sql("SELECT count(*) FROM ledger_entries WHERE payment_id = :id").param("id", payment)
                .query(Long.class).single();
    }
}
