package dev.outbox.relay.polling;

import java.time.Duration;

import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import dev.outbox.relay.RelayProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * {@code relay.mode=polling}: the lease-based relay, the fallback when logical replication is not available.
 * In {@code relay.mode=auto} it exists too, stopped, until {@code AutoFallback} starts it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${relay.mode:cdc}' != 'cdc'")
class PollingConfiguration {

    @Bean
    PollingRelay pollingRelay(JdbcClient jdbc, KafkaPublisher publisher, PublishProperties publish,
            PollingProperties settings, MeterRegistry meters, RelayProperties relay) {
        LeasesFitDeliveryTimeout.check(settings, publish);
        LeaseClaimer claimer = new LeaseClaimer(jdbc, settings.perAggregateOrder());
        return new PollingRelay(settings, () -> new PollingWorker(claimer, publisher, publish, settings,
                Duration.ZERO, settings.maxAttempts(), "relay", meters), relay.mode() == RelayProperties.Mode.polling);
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
