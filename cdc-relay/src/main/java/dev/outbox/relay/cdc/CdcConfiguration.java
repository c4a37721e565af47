package dev.outbox.relay.cdc;

import dev.outbox.relay.outbox.OutboxMarks;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/** {@code relay.mode=cdc} (the default): the embedded Debezium engine tails the WAL; no polling. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "relay.mode", havingValue = "cdc", matchIfMissing = true)
class CdcConfiguration {

    @Bean
    CdcRelay cdcRelay(CdcProperties cdc, DatabaseProperties db, PublishProperties kafka, KafkaPublisher publisher,
            OutboxMarks marks, MeterRegistry meters) {
        return new CdcRelay(cdc, db, kafka, publisher, marks, meters);
    }

    @Bean
    SlotMonitor cdcSlot(JdbcClient jdbc, CdcRelay relay, CdcProperties cdc, MeterRegistry meters) {
        return new SlotMonitor(jdbc, relay, cdc, meters);
    }
}
