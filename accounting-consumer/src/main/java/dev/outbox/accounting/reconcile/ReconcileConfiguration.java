package dev.outbox.accounting.reconcile;

import dev.outbox.accounting.AccountingProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The reconcile job, in this process when {@code reconcile.enabled} (its endpoint: {@link ReconcileAdmin}). */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("reconcile.enabled")
class ReconcileConfiguration {

    @Bean
    ReconcileJob reconcileJob(
            ReconcileProperties settings,
            AccountingProperties consumer,
            DataSourceProperties accountingDb,
            KafkaProperties kafka,
            MeterRegistry meters) {
        return new ReconcileJob(settings, consumer, accountingDb, kafka, meters);
    }
}
