package dev.outbox.accounting;

import java.util.List;
import java.util.Map;

import dev.outbox.accounting.inbox.InboxRetention;
import dev.outbox.testing.SharedInfra;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InboxRetentionIntegrationTests {

    @Test
    void refusesToStartWithAnInboxWindowShorterThanTheTopicRetention() throws Exception {
        String topic = "retained-" + Long.toHexString(System.nanoTime());
        try (Admin admin =
                Admin.create(Map.of("bootstrap.servers", SharedInfra.kafka().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                            .configs(Map.of("retention.ms", String.valueOf(14L * 24 * 3600 * 1000)))))
                    .all()
                    .get();
        }
        String database = EventFixtures.accountingDatabase();

        assertThatThrownBy(() -> AccountingApplication.builder()
                        .run(EventFixtures.consumerArgs(
                                database, topic, "g-" + topic, "--accounting.inbox-retention=7d"))
                        .close())
                .hasStackTraceContaining("must exceed the retention of " + topic);
    }

    @Test
    void deletesOnlyThisConsumersRowsOlderThanTheWindow() {
        String topic = "retention-" + Long.toHexString(System.nanoTime());
        EventFixtures.createTopic(topic, 1);
        String database = EventFixtures.accountingDatabase();
        try (ConfigurableApplicationContext consumer =
                AccountingApplication.builder().run(EventFixtures.consumerArgs(database, topic, "g-" + topic))) {
            JdbcClient jdbc = EventFixtures.jdbc(database);
            jdbc.sql("""
                    INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
                    SELECT c, gen_random_uuid(), now() - age
                      FROM (VALUES ('accounting', interval '40 days'), ('accounting', interval '1 day'),
                                   ('audit', interval '40 days')) v(c, age), generate_series(1, 600)""").update();

            int deleted = consumer.getBean(InboxRetention.class).purge();

            assertThat(deleted).isEqualTo(600);
            assertThat(jdbc.sql("SELECT consumer_name || ':' || count(*) FROM inbox_messages GROUP BY consumer_name "
                                    + "ORDER BY 1")
                            .query(String.class)
                            .list())
                    .containsExactly("accounting:600", "audit:600");
        }
    }
}
