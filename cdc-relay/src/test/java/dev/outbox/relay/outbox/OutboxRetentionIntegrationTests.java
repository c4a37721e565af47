package dev.outbox.relay.outbox;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention deletes published rows that occurred longer ago than its age, oldest first in batches; rows the stream's
 * horizon published are deleted the same way (StreamHorizonIntegrationTests).
 */
class OutboxRetentionIntegrationTests {

    @Test
    void deletesOnlyPublishedRowsOlderThanTheRetentionInBatches() {
        String database = OutboxRows.migratedDatabase();
        JdbcClient jdbc = JdbcClient.create(OutboxRows.dataSource(database));
        List<OutboxEvent> old = OutboxRows.insert(database, 1200, 1);
        List<OutboxEvent> recent = OutboxRows.insert(database, 10, 1);
        List<OutboxEvent> pending = OutboxRows.insert(database, 10, 1);
        List<OutboxEvent> dead = OutboxRows.insert(database, 10, 1);
        age(jdbc, old, "occurred_at = now() - interval '8 days', published_at = now() - interval '8 days'");
        age(jdbc, recent, "occurred_at = now() - interval '1 day', published_at = now() - interval '1 day'");
        age(jdbc, pending, "occurred_at = now() - interval '8 days'");
        age(jdbc, dead, "occurred_at = now() - interval '30 days', dead_lettered_at = now() - interval '30 days'");

        int deleted = new OutboxRetention(
                        new Outbox(jdbc),
                        new RetentionProperties(Duration.ofDays(7), Duration.ofMinutes(5), 500),
                        new SimpleMeterRegistry())
                .purge();

        assertThat(deleted).isEqualTo(1200);
        Set<UUID> kept = new HashSet<>();
        for (List<OutboxEvent> events : List.of(recent, pending, dead)) {
            events.forEach(e -> kept.add(e.id()));
        }
        assertThat(Set.copyOf(jdbc.sql("SELECT id FROM outbox_messages")
                        .query(UUID.class)
                        .list()))
                .isEqualTo(kept);
    }

    /** Test arrangement only: puts rows in the state their age would have given them. */
    private static void age(JdbcClient jdbc, List<OutboxEvent> events, String assignment) {
        jdbc.sql("UPDATE outbox_messages SET " + assignment + " WHERE id = ANY(CAST(:ids AS uuid[]))")
                .param("ids", events.stream().map(OutboxEvent::id).toArray(UUID[]::new))
                .update();
    }
}
