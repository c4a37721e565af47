package dev.outbox.relay;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

import dev.outbox.contract.EventTypes;
import dev.outbox.contract.TimeOrderedIds;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.jdbc.Writes;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.payments.outbox.OutboxWriter;
import dev.outbox.testing.SharedInfra;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one way tests put events in an outbox: a payments database migrated by payments-api's own migrations, and
 * rows written by payments-api's own {@link OutboxWriter}, in one transaction per call, so no test holds a copy of
 * the production INSERT.
 */
public final class OutboxRows {

    public static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private OutboxRows() {}

    /** A fresh database on the shared server, migrated by payments-api's Flyway migrations. */
    public static String migratedDatabase() {
        String name = SharedInfra.freshDatabase("payments");
        migrate(
                SharedInfra.postgres().jdbcUrl(name),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password());
        return name;
    }

    public static void migrate(String url, String user, String password) {
        Flyway.configure()
                .dataSource(url, user, password)
                .locations("classpath:db/payments")
                .load()
                .migrate();
    }

    public static DataSource dataSource(String database) {
        return new DriverManagerDataSource(
                SharedInfra.postgres().jdbcUrl(database),
                LocalCredentials.POSTGRES.user(),
                LocalCredentials.POSTGRES.password());
    }

    /** A payment event of schema version 1: version 1 is its PaymentCreated, later versions are refunds. */
    public static OutboxEvent event(UUID payment, long version, String payloadJson) {
        return new OutboxEvent(
                TimeOrderedIds.next(),
                EventTypes.PAYMENT,
                payment,
                version,
                version == 1 ? EventTypes.PAYMENT_CREATED : EventTypes.PAYMENT_REFUNDED,
                EventTypes.SCHEMA_VERSION,
                payloadJson,
                TRACEPARENT,
                Instant.now().truncatedTo(ChronoUnit.MICROS));
    }

    /** The payload of a payment event, as payments-api writes it (valid against its schema). */
    public static String payload(UUID payment, long version, String amount) {
        String now = Instant.now().truncatedTo(ChronoUnit.MICROS).toString();
        return version == 1
                ? "{\"paymentId\":\"%s\",\"clientId\":\"client-a\",\"amount\":\"%s\",\"currency\":\"EUR\",\"occurredAt\":\"%s\"}"
                        .formatted(payment, amount, now)
                : ("{\"paymentId\":\"%s\",\"refundId\":\"%s\",\"amount\":\"%s\",\"currency\":\"EUR\","
                                + "\"refundedTotal\":\"%s\",\"occurredAt\":\"%s\"}")
                        .formatted(
                                payment,
                                TimeOrderedIds.next(),
                                amount,
                                new BigDecimal(amount).multiply(BigDecimal.valueOf(version - 1)),
                                now);
    }

    /**
     * A valid payload of a payment's first event with more fields after its own (the schema lets a payload carry
     * fields a version does not name): {@code fields} is their JSON, without braces.
     */
    public static String payloadWith(UUID payment, String fields) {
        String payload = payload(payment, 1, "1.00");
        return payload.substring(0, payload.length() - 1) + "," + fields + "}";
    }

    /** {@code aggregates} payments of {@code perAggregate} consecutive versions each, written in one transaction. */
    public static List<OutboxEvent> insert(String database, int aggregates, int perAggregate) {
        return insert(dataSource(database), aggregates, perAggregate);
    }

    public static List<OutboxEvent> insert(DataSource dataSource, int aggregates, int perAggregate) {
        List<OutboxEvent> events = new ArrayList<>(aggregates * perAggregate);
        for (int a = 0; a < aggregates; a++) {
            UUID payment = TimeOrderedIds.next();
            for (int v = 1; v <= perAggregate; v++) {
                events.add(event(payment, v, payload(payment, v, "1.00")));
            }
        }
        write(dataSource, events);
        return events;
    }

    /** Writes the events through payments-api's OutboxWriter, all in one transaction, one statement each. */
    public static void write(DataSource dataSource, List<OutboxEvent> events) {
        OutboxWriter writer = new OutboxWriter();
        Writes writes = new Writes(JdbcClient.create(dataSource));
        new TransactionTemplate(new DataSourceTransactionManager(dataSource))
                .executeWithoutResult(tx -> events.forEach(e -> writes.send(List.of(writer.insert(e)))));
    }

    public static List<String> ids(List<OutboxEvent> events) {
        return events.stream().map(e -> e.id().toString()).toList();
    }
}
