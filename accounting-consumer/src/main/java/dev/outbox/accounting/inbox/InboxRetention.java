package dev.outbox.accounting.inbox;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.outbox.accounting.AccountingProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Deletes this consumer's inbox rows older than the configured window, in small batches. Deleting an inbox row
 * too early would accept an old message as new, so at start-up the window is checked against the topic's
 * retention (the redelivery horizon) and a shorter one is refused. Per-payment versions still reject a stale
 * replay as a second line of defense.
 */
@Component
public final class InboxRetention implements InitializingBean, SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(InboxRetention.class);

    private final Inbox inbox;
    private final KafkaAdmin kafka;
    private final AccountingProperties properties;

    InboxRetention(Inbox inbox, KafkaAdmin kafka, AccountingProperties properties) {
        this.inbox = inbox;
        this.kafka = kafka;
        this.properties = properties;
    }

    @Override
    public void afterPropertiesSet() throws Exception {
        Duration window = properties.inboxRetention();
        Duration horizon = redeliveryHorizon();
        if (horizon == null) {
            throw new IllegalStateException("the topic " + properties.topic() + " keeps records forever "
                    + "(retention.ms=-1): an inbox retention of " + window + " would accept old redeliveries as new");
        }
        if (window.compareTo(horizon) <= 0) {
            throw new IllegalStateException("accounting.inbox-retention (" + window + ") must exceed the retention "
                    + "of " + properties.topic() + " (" + horizon + "), the redelivery horizon");
        }
        log.info("inbox rows are kept {} (topic retention {})", window, horizon);
    }

    /** The topic's retention.ms, or the broker's default if the topic does not exist yet; null for forever. */
    private Duration redeliveryHorizon() throws Exception {
        try (Admin admin = Admin.create(kafka.getConfigurationProperties())) {
            String topic = properties.topic();
            boolean exists = admin.listTopics().names().get().contains(topic);
            ConfigResource resource = exists
                    ? new ConfigResource(ConfigResource.Type.TOPIC, topic)
                    : new ConfigResource(
                            ConfigResource.Type.BROKER,
                            String.valueOf(admin.describeCluster()
                                    .nodes()
                                    .get()
                                    .iterator()
                                    .next()
                                    .id()));
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(Set.of(resource)).all().get();
            Config config = configs.get(resource);
            ConfigEntry entry = config.get(exists ? "retention.ms" : "log.retention.ms");
            String value = entry == null || entry.value() == null ? null : entry.value();
            if (value == null && !exists) {
                ConfigEntry hours = config.get("log.retention.hours");
                value = String.valueOf(Long.parseLong(hours.value()) * 3_600_000L);
            }
            long ms = Long.parseLong(value);
            return ms < 0 ? null : Duration.ofMillis(ms);
        }
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(
                new FixedDelayTask(this::purge, properties.retentionInterval(), properties.retentionInterval()));
    }

    /** @return rows deleted by this run; each batch is its own short transaction */
    public int purge() {
        int total = 0;
        int n;
        int batch = properties.retentionBatchSize();
        do {
            n = inbox.deleteOlderThan(properties.consumerName(), properties.inboxRetention(), batch);
            total += n;
        } while (n == batch);
        if (total > 0) {
            log.info("deleted {} inbox rows older than {}", total, properties.inboxRetention());
        }
        return total;
    }
}
