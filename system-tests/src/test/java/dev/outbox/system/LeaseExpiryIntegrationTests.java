package dev.outbox.system;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.outbox.OutboxRow;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An expired lease recovered (the lease protocol's test 9, with test 4's duplicate): worker A claims a row with the
 * relay's own claim, publishes it, and stalls past its lease before marking it. Worker B takes the lease over, and A's
 * late mark, through the relay's own owner-checked mark, is refused while the row is still unpublished (lease lost);
 * B stalls too, the polling relay recovers the expired lease and publishes the same event again, and A's mark is still
 * refused; the consumer applies the event once.
 */
class LeaseExpiryIntegrationTests {

    @Test
    void anExpiredLeaseIsRecoveredAndTheEventStillHasOneEffect() throws Exception {
        String suffix = "lease" + Long.toHexString(System.nanoTime());
        String pattern = "t-" + suffix + ".{aggregateType}.events";
        String topic = "t-" + suffix + ".payment.events";
        String payments = OutboxRows.migratedDatabase();
        JdbcClient jdbc = JdbcClient.create(OutboxRows.dataSource(payments));
        Outbox outbox = new Outbox(jdbc);
        String accounting = EventFixtures.accountingDatabase();
        JdbcClient ledger = EventFixtures.jdbc(accounting);
        EventFixtures.createTopic(topic, 3);

        UUID payment = UUID.randomUUID();
        OutboxEvent event = OutboxRows.event(payment, 1, OutboxRows.payload(payment, 1, "15.00"));
        OutboxRows.write(OutboxRows.dataSource(payments), List.of(event));

        try (ConfigurableApplicationContext consumer =
                AccountingApplication.builder().run(EventFixtures.consumerArgs(accounting, topic, "lease-" + suffix))) {
            UUID workerA = UUID.randomUUID();
            List<OutboxRow> claimed = outbox.claim(workerA, 10, Duration.ofSeconds(1), Duration.ZERO, false);
            assertThat(claimed).extracting(OutboxRow::id).containsExactly(event.id());
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    "bootstrap.servers",
                    SharedInfra.kafka().bootstrapServers(),
                    "acks",
                    "all",
                    "key.serializer",
                    StringSerializer.class,
                    "value.serializer",
                    ByteArraySerializer.class))) {
                producer.send(claimed.get(0).toEventRecord(pattern).toProducerRecord())
                        .get();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> entries(ledger, payment) == 1);
            awaitLeaseExpired(jdbc, event.id());

            // worker B takes the expired lease over; A's late mark, while the row is still unpublished, is refused:
            // only the lease's owner marks
            UUID workerB = UUID.randomUUID();
            assertThat(outbox.claim(workerB, 10, Duration.ofSeconds(1), Duration.ZERO, false))
                    .extracting(OutboxRow::id)
                    .containsExactly(event.id());
            assertThat(outbox.markPublished(List.of(event.id()), workerA))
                    .as("a mark by a worker whose lease passed to another")
                    .isZero();
            assertThat(jdbc.sql("SELECT published FROM outbox_delivery WHERE id = :id")
                            .param("id", event.id())
                            .query(Boolean.class)
                            .single())
                    .as("still unpublished: B holds it")
                    .isFalse();
            // B stalls too; the polling relay recovers its lease
            awaitLeaseExpired(jdbc, event.id());

            try (ConfigurableApplicationContext relay = RelayApplication.builder()
                    .run(
                            "--server.port=" + Ports.free(),
                            "--relay.mode=polling",
                            "--relay.db.host=" + SharedInfra.postgres().host(),
                            "--relay.db.port=" + SharedInfra.postgres().port(),
                            "--relay.db.name=" + payments,
                            "--relay.kafka.bootstrap-servers="
                                    + SharedInfra.kafka().bootstrapServers(),
                            "--relay.kafka.topic-pattern=" + pattern)) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> jdbc.sql("SELECT count(*) FROM outbox_delivery WHERE published")
                                        .query(Long.class)
                                        .single()
                                == 1);
                assertThat(relay.getBean(MeterRegistry.class)
                                .find("outbox_polling_expired_leases_recovered")
                                .counter()
                                .count())
                        .isEqualTo(1);
            }
            assertThat(outbox.markPublished(List.of(event.id()), workerA))
                    .as("the stalled worker's late mark is refused")
                    .isZero();
            assertThat(jdbc.sql("SELECT attempts FROM outbox_messages WHERE id = :id")
                            .param("id", event.id())
                            .query(Integer.class)
                            .single())
                    .isEqualTo(3);

            await().atMost(Duration.ofSeconds(30)).until(() -> {
                var c = consumer.getBean(MeterRegistry.class)
                        .find("accounting_events")
                        .tag("outcome", "duplicate")
                        .counter();
                return c != null && c.count() >= 1;
            });
            assertThat(entries(ledger, payment)).isEqualTo(1);
        }
    }

    private static void awaitLeaseExpired(JdbcClient jdbc, UUID id) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.sql("SELECT locked_until < now() FROM outbox_messages WHERE id = :id")
                        .param("id", id)
                        .query(Boolean.class)
                        .single());
    }

    private static long entries(JdbcClient ledger, UUID payment) {
        return ledger.sql("SELECT count(*) FROM ledger_entries WHERE payment_id = :id")
                .param("id", payment)
                .query(Long.class)
                .single();
    }
}
