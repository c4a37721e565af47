package dev.outbox.system;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.EventFixtures;
import dev.outbox.local.LocalCredentials;
import dev.outbox.relay.OutboxRows;
import dev.outbox.relay.RelayApplication;
import dev.outbox.relay.outbox.DeadLetter;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.outbox.OutboxRow;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The roles compose and the local run create (docker/postgres/init.sql, applied as is), on a real PostgreSQL: the relay can read and mark the outbox
 * and stream it by CDC, but cannot read payments or rewrite an event; the consumer cannot even connect to the
 * payments database; payments-api's role owns and migrates its database.
 */
class LeastPrivilegeIntegrationTests {

    @Test
    void everyRoleProvesItsPasswordTheSuperuserIncluded() throws Exception {
        SharedInfra.postgres().applyInitScript();
        String url = SharedInfra.postgres().jdbcUrl("payments");
        for (String[] login : new String[][] {
            {"postgres", "wrong"},
            {"postgres", "Postgres"},
            {"relay", "postgres"},
            {"payments_app", "relay"},
            {"accounting_app", "x"},
            {"nobody", "nobody"}
        }) {
            assertThatThrownBy(() ->
                            DriverManager.getConnection(url, login[0], login[1]).close())
                    .as(login[0] + " with a wrong password")
                    .hasMessageContaining("password authentication failed");
        }
        DriverManager.getConnection(url, LocalCredentials.PAYMENTS_DB.user(), LocalCredentials.PAYMENTS_DB.password())
                .close();
    }

    /**
     * The reconcile job's login (init.sql), through payments_reconciler and accounting_reconciler: it reads the columns
     * its judgement needs on each database and asks which events are published; no payload, no key, no write.
     */
    @Test
    void theReconcileJobReadsWhatItJudgesByAndCanChangeNothing() throws Exception {
        SharedInfra.postgres().applyInitScript();
        String payments = SharedInfra.postgres().jdbcUrl("payments");
        String accounting = SharedInfra.postgres().jdbcUrl("accounting");
        OutboxRows.migrate(payments, LocalCredentials.PAYMENTS_DB.user(), LocalCredentials.PAYMENTS_DB.password());
        org.flywaydb.core.Flyway.configure()
                .dataSource(
                        accounting, LocalCredentials.ACCOUNTING_DB.user(), LocalCredentials.ACCOUNTING_DB.password())
                .locations("classpath:db/accounting")
                .load()
                .migrate();
        String user = LocalCredentials.RECONCILER_DB.user();
        String password = LocalCredentials.RECONCILER_DB.password();
        try (Connection c = DriverManager.getConnection(payments, user, password);
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT id, aggregate_id, event_type, ready_xid, occurred_at, dead_lettered_at"
                            + " FROM outbox_reconcile")
                    .close();
            s.executeQuery("SELECT outbox_published_among(ARRAY[gen_random_uuid()])")
                    .close();
            s.executeQuery("SELECT id, amount, refunded_amount, version FROM payments")
                    .close();
            for (String read : List.of(
                    "SELECT payload FROM outbox_messages",
                    "SELECT id FROM outbox_messages",
                    "SELECT id FROM outbox_delivery",
                    "SELECT client_id FROM payments",
                    "SELECT description FROM payments",
                    "SELECT * FROM idempotency_keys",
                    "SELECT * FROM refunds",
                    "SELECT * FROM outbox_requeues")) {
                assertThatThrownBy(() -> s.executeQuery(read)).as(read).hasMessageContaining("permission denied");
            }
            for (String write : List.of(
                    "UPDATE outbox_messages SET dead_lettered_at = now() WHERE false",
                    "UPDATE outbox_reconcile SET dead_lettered_at = now() WHERE false",
                    "DELETE FROM outbox_reconcile WHERE false",
                    "UPDATE payments SET amount = 1 WHERE false",
                    "UPDATE outbox_claim_floor SET ready_xid = 0")) {
                assertThatThrownBy(() -> s.executeUpdate(write)).as(write).hasMessageContaining("permission denied");
            }
        }
        try (Connection c = DriverManager.getConnection(accounting, user, password);
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT consumer_name, event_id, payment_id, amount FROM ledger_entries")
                    .close();
            s.executeQuery("SELECT consumer_name, message_id FROM inbox_messages")
                    .close();
            s.executeQuery("SELECT consumer_name, payment_id, event_id FROM parked_events")
                    .close();
            s.executeQuery("SELECT consumer_name, payment_id, last_version FROM payment_positions")
                    .close();
            s.executeQuery("SELECT pg_try_advisory_lock(hashtext('payments-outbox reconcile'))")
                    .close();
            for (String read : List.of(
                    "SELECT payload FROM parked_events",
                    "SELECT trace_id FROM ledger_entries",
                    "SELECT * FROM dlt_replays",
                    "SELECT * FROM gap_resolutions")) {
                assertThatThrownBy(() -> s.executeQuery(read)).as(read).hasMessageContaining("permission denied");
            }
            for (String write : List.of(
                    "DELETE FROM ledger_entries WHERE false",
                    "INSERT INTO inbox_messages VALUES ('x', gen_random_uuid(), now())",
                    "UPDATE payment_positions SET last_version = 0 WHERE false",
                    "DELETE FROM parked_events WHERE false")) {
                assertThatThrownBy(() -> s.executeUpdate(write)).as(write).hasMessageContaining("permission denied");
            }
        }
    }

    /**
     * Measured, not claimed: REPLICATION is a privilege over the whole database. The relay's login, through a
     * logical slot of its own with the test_decoding plugin (which ignores publications), reads rows of payments
     * and idempotency_keys, response bodies included, although SELECT on those tables is denied to it.
     */
    @Test
    void aReplicationRoleCanDecodeEveryTableOfItsDatabase() throws Exception {
        SharedInfra.postgres().applyInitScript();
        String url = SharedInfra.postgres().jdbcUrl("payments");
        OutboxRows.migrate(url, LocalCredentials.PAYMENTS_DB.user(), LocalCredentials.PAYMENTS_DB.password());
        String slot = "snoop_" + Long.toHexString(System.nanoTime());
        try (Connection relay = DriverManager.getConnection(
                        url, LocalCredentials.RELAY_DB.user(), LocalCredentials.RELAY_DB.password());
                Connection owner = DriverManager.getConnection(
                        url, LocalCredentials.PAYMENTS_DB.user(), LocalCredentials.PAYMENTS_DB.password());
                Statement r = relay.createStatement();
                Statement o = owner.createStatement()) {
            assertThatThrownBy(() -> r.executeQuery("SELECT * FROM idempotency_keys"))
                    .hasMessageContaining("permission denied");
            r.executeQuery("SELECT pg_create_logical_replication_slot('" + slot + "', 'test_decoding', true)")
                    .close();
            UUID payment = UUID.randomUUID();
            o.executeUpdate("""
                    INSERT INTO payments (id, client_id, amount, currency, description, refunded_amount, status,
                                          version, created_at, updated_at)
                    VALUES ('%s', 'client-a', 4242.42, 'EUR', 'salary of J. Doe', 0, 'CREATED', 1, now(), now())""".formatted(payment));
            o.executeUpdate("""
                    INSERT INTO idempotency_keys (client_id, idempotency_key, request_hash, response_status,
                                                  response_body, created_at, expires_at)
                    VALUES ('client-a', 'k-%s', 'h', 201, convert_to('{"secret":"response body"}', 'UTF8'), now(),
                            now() + interval '1 day')""".formatted(payment));
            StringBuilder decoded = new StringBuilder();
            try (var rs = r.executeQuery("SELECT data FROM pg_logical_slot_get_changes('" + slot + "', NULL, NULL)")) {
                while (rs.next()) {
                    decoded.append(rs.getString(1)).append('\n');
                }
            }
            assertThat(decoded)
                    .contains(
                            "table public.payments: INSERT",
                            "salary of J. Doe",
                            "4242.42",
                            "table public.idempotency_keys: INSERT",
                            "k-" + payment);
            assertThat(decoded.toString())
                    .as("the response body, as bytea hex")
                    .contains(java.util.HexFormat.of().formatHex("response body".getBytes()));
        }
    }

    @Test
    void theRelayDoesItsJobAndNothingMoreAndTheConsumerCannotReachPayments() throws Exception {
        // the very script compose runs on an empty data directory, and the local run on its first start
        SharedInfra.postgres().applyInitScript();
        String app = LocalCredentials.PAYMENTS_DB.user();
        String relay = LocalCredentials.RELAY_DB.user();
        String accounting = LocalCredentials.ACCOUNTING_DB.user();
        String payments = "payments";
        String suffix = "lp" + Long.toHexString(System.nanoTime());
        String url = SharedInfra.postgres().jdbcUrl(payments);
        OutboxRows.migrate(url, app, LocalCredentials.PAYMENTS_DB.password());

        try (Connection r = DriverManager.getConnection(
                        url, LocalCredentials.RELAY_DB.user(), LocalCredentials.RELAY_DB.password());
                Statement s = r.createStatement()) {
            s.executeQuery("SELECT count(*) FROM outbox_messages").close();
            s.executeQuery("SELECT count(*) FROM outbox_delivery WHERE published")
                    .close();
            s.executeUpdate("UPDATE outbox_messages SET published_at = now(), stream_coverable = false WHERE false");
            s.executeUpdate("UPDATE outbox_stream_horizon SET horizon = NULL WHERE false");
            // the requeue audit: written and read, never rewritten
            s.executeQuery("SELECT count(*) FROM outbox_requeues").close();
            assertThatThrownBy(() -> s.executeUpdate("UPDATE outbox_requeues SET requeued = 0"))
                    .hasMessageContaining("permission denied");
            assertThatThrownBy(() -> s.executeUpdate("DELETE FROM outbox_requeues"))
                    .hasMessageContaining("permission denied");
            // every other table of the schema, whatever later migrations add
            List<String> others = new ArrayList<>();
            try (var tables = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                    + " AND tablename NOT IN ('outbox_messages', 'outbox_claim_floor', 'outbox_stream_horizon',"
                    + " 'outbox_requeues')"
                    + " ORDER BY tablename")) {
                while (tables.next()) {
                    others.add(tables.getString(1));
                }
            }
            assertThat(others).contains("payments", "refunds", "idempotency_keys", "flyway_schema_history");
            for (String table : others) {
                assertThatThrownBy(() -> s.executeQuery("SELECT * FROM " + table))
                        .as(table)
                        .hasMessageContaining("permission denied");
            }
            assertThatThrownBy(() -> s.executeUpdate("UPDATE outbox_messages SET payload = '{}'"))
                    .hasMessageContaining("permission denied");
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO outbox_messages (id) VALUES (gen_random_uuid())"))
                    .hasMessageContaining("permission denied");
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url, accounting, LocalCredentials.ACCOUNTING_DB.password())
                        .close())
                .hasMessageContaining("permission denied for database");

        try (ConfigurableApplicationContext cdc = RelayApplication.builder()
                        .run(
                                "--server.port=" + Ports.free(),
                                "--relay.db.host=" + SharedInfra.postgres().host(),
                                "--relay.db.port=" + SharedInfra.postgres().port(),
                                "--relay.db.name=" + payments,
                                "--relay.db.user=" + relay,
                                "--relay.db.password=" + LocalCredentials.RELAY_DB.password(),
                                "--relay.kafka.bootstrap-servers="
                                        + SharedInfra.kafka().bootstrapServers(),
                                "--relay.kafka.topic-pattern=t-" + suffix + ".{aggregateType}.events",
                                "--relay.cdc.slot-name=slot_" + suffix,
                                "--relay.cdc.offsets-topic=offsets-" + suffix);
                Connection owner = DriverManager.getConnection(url, app, LocalCredentials.PAYMENTS_DB.password())) {
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                try (Statement s = owner.createStatement();
                        var rs = s.executeQuery(
                                "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = 'slot_" + suffix
                                        + "'")) {
                    rs.next();
                    return rs.getLong(1) == 1;
                }
            });
            UUID id = OutboxRows.insert(
                            new DriverManagerDataSource(url, app, LocalCredentials.PAYMENTS_DB.password()), 1, 1)
                    .get(0)
                    .id();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                try (Statement s = owner.createStatement();
                        var rs = s.executeQuery("SELECT published FROM outbox_delivery WHERE id = '" + id + "'")) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            });
            assertThat(EventFixtures.read("t-" + suffix + ".payment.events", 1, Duration.ofSeconds(30)))
                    .hasSize(1);
        }

        // the polling relay's and the safety net's statements, as the relay: claims read from the claim floor, a retry
        // and a requeue make the row ready again, the count raises the floor
        Outbox asRelay = new Outbox(
                JdbcClient.create(new DriverManagerDataSource(url, relay, LocalCredentials.RELAY_DB.password())));
        UUID worker = UUID.randomUUID();
        UUID row = OutboxRows.insert(
                        new DriverManagerDataSource(url, app, LocalCredentials.PAYMENTS_DB.password()), 1, 1)
                .get(0)
                .id();
        assertThat(claim(asRelay, worker)).containsExactly(row);
        assertThat(asRelay.scheduleRetry(row, worker, Duration.ZERO, "broker unavailable", 12))
                .contains(false);
        assertThat(claim(asRelay, worker)).containsExactly(row);
        asRelay.deadLetter(row, new IllegalStateException("rejected"));
        assertThat(asRelay.requeue(DeadLetter.Selection.one(row), null, "operator")
                        .requeued())
                .isEqualTo(1);
        assertThat(asRelay.backlog().pending()).isEqualTo(1);
        assertThat(claim(asRelay, worker)).containsExactly(row);
        assertThat(asRelay.markPublished(List.of(row), worker)).isEqualTo(1);
        assertThat(asRelay.backlog().pending()).isZero();
    }

    private static List<UUID> claim(Outbox outbox, UUID worker) {
        return outbox.claim(worker, 10, Duration.ofSeconds(30), Duration.ZERO, false).stream()
                .map(OutboxRow::id)
                .toList();
    }
}
