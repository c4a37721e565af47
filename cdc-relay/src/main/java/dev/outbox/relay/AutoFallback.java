package dev.outbox.relay;

import java.util.concurrent.atomic.AtomicReference;

import dev.outbox.relay.cdc.CdcRelay;
import dev.outbox.relay.cdc.SlotMonitor;
import dev.outbox.relay.polling.PollingRelay;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * {@code relay.mode=auto}: starts in cdc; falls back to polling when the database cannot do logical replication
 * (wal_level is not logical) or the slot is lost (wal_status=lost), and says so in health and metrics. Going
 * back to cdc is a deliberate operator action (restart in cdc or auto mode), never a flapping automatic one.
 */
@Component
@ConditionalOnProperty(name = "relay.mode", havingValue = "auto")
final class AutoFallback implements SmartLifecycle, HealthIndicator, SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(AutoFallback.class);
    private static final String WAL_LEVEL = "SELECT current_setting('wal_level')";

    private final JdbcClient jdbc;
    private final CdcRelay cdc;
    private final PollingRelay polling;
    private final SlotMonitor slot;
    private final RelayProperties relay;
    private final AtomicReference<String> fallbackReason = new AtomicReference<>();
    private volatile boolean running;

    AutoFallback(
            JdbcClient jdbc,
            CdcRelay cdc,
            PollingRelay polling,
            SlotMonitor slot,
            RelayProperties relay,
            MeterRegistry meters) {
        this.jdbc = jdbc;
        this.relay = relay;
        this.cdc = cdc;
        this.polling = polling;
        this.slot = slot;
        Gauge.builder("outbox_relay_fallback", fallbackReason, r -> r.get() == null ? 0 : 1)
                .description("1 when relay.mode=auto has fallen back to polling")
                .register(meters);
    }

    @Override
    public void start() {
        running = true;
        String walLevel = jdbc.sql(WAL_LEVEL).query(String.class).single();
        if ("logical".equals(walLevel)) {
            log.info("relay.mode=auto: logical replication available, starting in cdc mode");
            cdc.start();
        } else {
            fallBack("wal_level is " + walLevel + ", not logical");
        }
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::watchSlot, relay.monitorInterval());
    }

    void watchSlot() {
        if (running && fallbackReason.get() == null && "lost".equals(slot.walStatus())) {
            cdc.stop();
            fallBack("replication slot lost");
        }
    }

    private void fallBack(String reason) {
        fallbackReason.set(reason);
        log.warn(
                "relay.mode=auto: falling back to polling ({}); the safety net and leases keep delivery whole", reason);
        polling.start();
    }

    @Override
    public Health health() {
        String reason = fallbackReason.get();
        return Health.up()
                .withDetail("configured", "auto")
                .withDetail("active", reason == null ? "cdc" : "polling")
                .withDetail("fallbackReason", reason == null ? "" : reason)
                .build();
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 50;
    }
}
