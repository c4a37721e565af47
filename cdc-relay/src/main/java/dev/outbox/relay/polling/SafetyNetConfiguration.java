package dev.outbox.relay.polling;

import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * In cdc mode, a polling sweep publishes rows that are still unpublished a grace period after they occurred:
 * a lost or recreated slot, or an update CDC never streams (a requeued dead letter), then loses nothing. It
 * never dead-letters: CDC stays the primary path.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${relay.mode:cdc}' != 'polling'")
class SafetyNetConfiguration {

    @Bean
    SafetyNet safetyNet(JdbcClient jdbc, KafkaPublisher publisher, PublishProperties publish,
            PollingProperties settings, MeterRegistry meters) {
        return new SafetyNet(new PollingWorker(new LeaseClaimer(jdbc, true), publisher, publish, settings,
                settings.safetyNetGrace(), Integer.MAX_VALUE, "safety-net", meters));
    }

    static final class SafetyNet {
        private static final Logger log = LoggerFactory.getLogger(SafetyNet.class);
        private final PollingWorker worker;

        SafetyNet(PollingWorker worker) {
            this.worker = worker;
        }

        @Scheduled(fixedDelayString = "${relay.polling.safety-net-interval:10s}",
                initialDelayString = "${relay.polling.safety-net-interval:10s}")
        void sweep() throws InterruptedException {
            int swept = 0;
            for (int n = worker.runOnce(); n > 0; n = worker.runOnce()) {
                swept += n;
            }
            if (swept > 0) {
                log.warn("safety net published {} events CDC had not delivered within the grace period", swept);
            }
        }
    }
}
