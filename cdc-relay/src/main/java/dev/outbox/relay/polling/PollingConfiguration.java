package dev.outbox.relay.polling;

import java.time.Duration;

import dev.outbox.relay.RelayProperties;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code relay.mode=polling}: the lease-based relay, the fallback when logical replication is not available.
 * In {@code relay.mode=auto} it exists too, stopped, until {@code AutoFallback} starts it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${relay.mode:cdc}' != 'cdc'")
class PollingConfiguration {

    @Bean
    PollingRelay pollingRelay(
            Outbox outbox,
            KafkaPublisher publisher,
            PublishProperties publish,
            PollingProperties settings,
            MeterRegistry meters,
            RelayProperties relay) {
        LeasesFitDeliveryTimeout.check(settings, publish);
        PollingWorker.ClaimPolicy policy = new PollingWorker.ClaimPolicy(
                settings.batchSize(),
                settings.lease(),
                Duration.ZERO,
                settings.perAggregateOrder(),
                settings.maxAttempts(),
                settings.retries());
        return new PollingRelay(
                settings,
                () -> new PollingWorker(policy, outbox, publisher, publish.topicPattern(), "relay", meters),
                relay.mode() == RelayProperties.Mode.polling);
    }

    @Bean
    HealthIndicator pollingRelayHealth(PollingRelay relay, PollingProperties settings) {
        return () -> Health.up()
                .withDetail("running", relay.isRunning())
                .withDetail("workers", settings.workers())
                .withDetail("perAggregateOrder", settings.perAggregateOrder())
                .withDetail("lastError", relay.lastError() == null ? "" : relay.lastError())
                .build();
    }
}
