package dev.outbox.relay.cdc;

import dev.outbox.relay.RelayProperties;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.polling.SafetyNetProperties;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@code relay.mode=cdc} (the default): the embedded Debezium engine tails the WAL; no polling. In
 * {@code relay.mode=auto} the same beans exist, but {@code AutoFallback} decides whether the engine starts.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${relay.mode:cdc}' != 'polling'")
class CdcConfiguration {

    @Bean
    CdcRelay cdcRelay(
            CdcProperties cdc,
            DatabaseProperties db,
            PublishProperties kafka,
            KafkaPublisher publisher,
            Outbox outbox,
            JdbcClient jdbc,
            PlatformTransactionManager transactions,
            SafetyNetProperties safetyNet,
            MeterRegistry meters,
            RelayProperties relay) {
        return new CdcRelay(
                cdc,
                db,
                kafka,
                publisher,
                outbox,
                new StreamHorizons(jdbc, outbox, transactions),
                safetyNet.grace(),
                meters,
                relay.mode() == RelayProperties.Mode.cdc);
    }

    @Bean
    SlotMonitor cdcSlot(
            JdbcClient jdbc, CdcRelay relay, CdcProperties cdc, RelayProperties settings, MeterRegistry meters) {
        return new SlotMonitor(jdbc, relay, cdc, settings.monitorInterval(), meters);
    }
}
