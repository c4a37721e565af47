package dev.outbox.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.testing.Ports;
import dev.outbox.testing.SharedInfra;
import dev.outbox.testing.TestPostgres;
import dev.outbox.testing.TopicReader;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay down for longer than PostgreSQL keeps WAL for its slot: PostgreSQL invalidates the slot (wal_status lost)
 * and nothing can stream from it again; Debezium would retry it for half an hour and never start. The relay drops the
 * lost slot, creates it anew and begins its horizon again: the rows the slot missed are published by the safety net,
 * later ones by the stream, each once. Its own PostgreSQL, keeping 1 MB of WAL for a slot.
 */
class CdcLostSlotIntegrationTests {

    @Test
    void aSlotLostWhileTheRelayWasDownIsCreatedAgainAndNothingIsLostOrSentTwice() throws Exception {
        try (TestPostgres pg = TestPostgres.start(false, Map.of("max_slot_wal_keep_size", "1MB"))) {
            String database = "lostslot";
            SharedInfra.createDatabases(pg, database);
            OutboxRows.migrate(
                    pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
            DriverManagerDataSource outbox = new DriverManagerDataSource(
                    pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
            String suffix = "lost" + Long.toHexString(System.nanoTime());
            String topic = "t-" + suffix + ".payment.events";
            Map<String, String> env =
                    RelayFixtures.relayEnv(database, SharedInfra.kafka().bootstrapServers(), suffix, Ports.free());
            env.put("RELAY_DB_HOST", pg.host());
            env.put("RELAY_DB_PORT", String.valueOf(pg.port()));
            env.put("RELAY_SAFETY_NET_GRACE", "3s");
            env.put("RELAY_SAFETY_NET_INTERVAL", "1s");
            String slot = "slot_" + suffix;

            List<OutboxEvent> all = new ArrayList<>();
            try (RelayProcess relay = new RelayProcess(env, suffix).c1Only().start()) {
                await().atMost(Duration.ofSeconds(90)).until(() -> count(pg, database, slotIs(slot, "active")) == 1);
                all.addAll(OutboxRows.insert(outbox, 3, 1));
                await().atMost(Duration.ofSeconds(60)).until(() -> pending(pg, database) == 0);
                relay.kill();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> count(pg, database, slotIs(slot, "NOT active")) == 1);

                // while it is down: rows the slot should stream, then more WAL than PostgreSQL keeps for it
                List<OutboxEvent> missed = OutboxRows.insert(outbox, 4, 1);
                all.addAll(missed);
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    execute(pg, database, "CREATE TABLE IF NOT EXISTS filler (t text)");
                    execute(pg, database, "INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 3000)");
                    execute(pg, database, "SELECT pg_switch_wal()");
                    execute(pg, database, "CHECKPOINT");
                    return count(pg, database, slotIs(slot, "wal_status = 'lost'")) == 1;
                });

                relay.start();
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> count(pg, database, slotIs(slot, "active AND wal_status <> 'lost'")) == 1);
                all.addAll(OutboxRows.insert(outbox, 2, 1));
                await().atMost(Duration.ofSeconds(60)).until(() -> pending(pg, database) == 0);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> copies(topic, all).size() == all.size());
                assertThat(copies(topic, all).values())
                        .as("every event once on the topic")
                        .containsOnly(1L);
                assertThat(relay.meters().get("outbox_cdc_rows_left_to_safety_net_total"))
                        .as("the rows the lost slot missed, left to the safety net")
                        .isEqualTo(missed.size());
                assertThat(relay.meters().get("outbox_polling_claimed_total"))
                        .as("and published by it")
                        .isEqualTo(missed.size());
            }
        }
    }

    private static String slotIs(String slot, String condition) {
        return "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND " + condition;
    }

    private static long pending(TestPostgres pg, String database) {
        return count(
                pg, database, "SELECT count(*) FROM outbox_delivery WHERE NOT published AND dead_lettered_at IS NULL");
    }

    private static long count(TestPostgres pg, String database, String sql) {
        try (Connection c = pg.connect(database);
                Statement s = c.createStatement()) {
            var rs = s.executeQuery(sql);
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void execute(TestPostgres pg, String database, String sql) {
        try (Connection c = pg.connect(database);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Event id -> copies on the topic (read to its end), among the given events. */
    private static Map<String, Long> copies(String topic, List<OutboxEvent> events) {
        Set<String> ids = Set.copyOf(OutboxRows.ids(events));
        return TopicReader.toEnd(SharedInfra.kafka().adminClientProperties(), topic, Duration.ofSeconds(30)).stream()
                .map(TopicReader::id)
                .filter(ids::contains)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }
}
