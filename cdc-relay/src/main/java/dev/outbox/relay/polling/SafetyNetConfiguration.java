package dev.outbox.relay.polling;

import dev.outbox.relay.cdc.CdcRelay;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * In cdc mode, a polling sweep publishes rows that are still unpublished a grace period after they occurred:
 * a lost or recreated slot, or an update CDC never streams (a requeued dead letter), then loses nothing. It
 * never dead-letters: CDC stays the primary path.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${relay.mode:cdc}' != 'polling'")
class SafetyNetConfiguration {

    @Bean
    SafetyNet safetyNet(
            Outbox outbox,
            KafkaPublisher publisher,
            PublishProperties publish,
            PollingProperties polling,
            SafetyNetProperties settings,
            ObjectProvider<CdcRelay> cdc,
            MeterRegistry meters) {
        PollingWorker.ClaimPolicy policy = new PollingWorker.ClaimPolicy(
                settings.batchSize(), polling.lease(), settings.grace(), false, Integer.MAX_VALUE, polling.retries());
        return new SafetyNet(
                new PollingWorker(policy, outbox, publisher, publish.topicPattern(), "safety-net", meters),
                settings,
                cdc.getIfAvailable());
    }

    static final class SafetyNet implements SchedulingConfigurer {
        private static final Logger log = LoggerFactory.getLogger(SafetyNet.class);
        private final PollingWorker worker;
        private final SafetyNetProperties settings;
        private final CdcRelay cdc;

        SafetyNet(PollingWorker worker, SafetyNetProperties settings, CdcRelay cdc) {
            this.worker = worker;
            this.settings = settings;
            this.cdc = cdc;
        }

        @Override
        public void configureTasks(ScheduledTaskRegistrar registrar) {
            registrar.addFixedDelayTask(
                    new FixedDelayTask(this::sweepQuietly, settings.interval(), settings.interval()));
        }

        private void sweepQuietly() {
            try {
                sweep();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * Publishes what CDC left behind, a batch at a time. While this instance's own stream is starting or delivering,
         * it takes only what that stream will not deliver: the rows ahead of its horizon are the stream's, however far
         * behind it is (a restart's backlog). Asked before every batch, so a sweep begun as a standby narrows when this
         * instance takes the lead.
         */
        void sweep() throws InterruptedException {
            int swept = 0;
            for (int n = worker.runOnce(deliveringSlot()); n > 0; n = worker.runOnce(deliveringSlot())) {
                swept += n;
            }
            if (swept > 0) {
                log.warn("safety net published {} events CDC had not delivered within the grace period", swept);
            }
        }

        /** The slot this instance's stream is delivering, or {@code null} when no stream of its is. */
        private String deliveringSlot() {
            return cdc != null && cdc.delivering(settings.grace()) ? cdc.slotName() : null;
        }
    }
}
