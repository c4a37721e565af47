package dev.outbox.relay.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import dev.outbox.infra.PostgresServer;
import dev.outbox.infra.SharedInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class OutboxRetentionIntegrationTests {

    @Test
    void deletesOnlyPublishedRowsOlderThanTheRetentionInBatches() {
        String database = SharedInfra.freshDatabase("payments");
        Flyway.configure().dataSource(SharedInfra.postgres().jdbcUrl(database), PostgresServer.USER,
                PostgresServer.PASSWORD).locations("classpath:db/payments").load().migrate();
        JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(SharedInfra.postgres().jdbcUrl(database),
                PostgresServer.USER, PostgresServer.PASSWORD));
        insert(jdbc, 1200, "now() - interval '8 days'", null, "old-published");
        insert(jdbc, 10, "now() - interval '1 day'", null, "recent-published");
        insert(jdbc, 10, null, null, "pending");
        insert(jdbc, 10, null, "now() - interval '30 days'", "dead-lettered");

        int deleted = new OutboxRetention(jdbc, new OutboxRetention.Settings(Duration.ofDays(7), 500),
                new SimpleMeterRegistry()).purge();

        assertThat(deleted).isEqualTo(1200);
        assertThat(jdbc.sql("SELECT event_type FROM outbox_messages GROUP BY event_type ORDER BY event_type")
                .query(String.class).list()).isEqualTo(List.of("dead-lettered", "pending", "recent-published"));
    }

    private static void insert(JdbcClient jdbc, int n, String publishedAt, String deadLetteredAt, String label) {
        jdbc.sql("""
                INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                                             schema_version, payload, occurred_at, published_at, dead_lettered_at)
                SELECT gen_random_uuid(), 'payment', gen_random_uuid(), 1, :label, 1, '{}', now() - interval '40 days',
                       %s, %s
                  FROM generate_series(1, :n)""".formatted(publishedAt == null ? "NULL" : publishedAt,
                        deadLetteredAt == null ? "NULL" : deadLetteredAt))
                .param("label", label).param("n", n).update();
    }
}
