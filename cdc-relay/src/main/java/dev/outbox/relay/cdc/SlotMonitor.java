package dev.outbox.relay.cdc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Watches the replication slot in pg_replication_slots: WAL retained behind it (lag in bytes), wal_status and
 * whether a relay streams from it. Published as metrics and as the relay's health.
 */
public final class SlotMonitor implements HealthIndicator, SchedulingConfigurer {

    private static final String SLOT = """
            SELECT active, wal_status, failover,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint AS lag_bytes
              FROM pg_replication_slots
             WHERE slot_name = :slot
            """;

    private final JdbcClient jdbc;
    private final CdcRelay relay;
    private final String slotName;
    private final java.time.Duration interval;
    private final AtomicLong lagBytes = new AtomicLong(-1);
    private final AtomicLong active = new AtomicLong(0);
    private final AtomicLong failover = new AtomicLong(0);
    private final AtomicReference<String> walStatus = new AtomicReference<>("missing");

    SlotMonitor(JdbcClient jdbc, CdcRelay relay, CdcProperties cdc, java.time.Duration interval, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.interval = interval;
        this.relay = relay;
        this.slotName = cdc.slotName();
        Gauge.builder("outbox_cdc_slot_lag_bytes", lagBytes, AtomicLong::get)
                .description("WAL retained behind the slot's confirmed flush position")
                .register(meters);
        Gauge.builder("outbox_cdc_slot_active", active, AtomicLong::get).register(meters);
        Gauge.builder("outbox_cdc_slot_failover", failover, AtomicLong::get)
                .description("1 when the slot is a failover slot (synchronized to standbys, PostgreSQL 17+)")
                .register(meters);
        Gauge.builder("outbox_cdc_leader", relay, r -> r.role() == CdcRelay.Role.LEADER ? 1 : 0)
                .register(meters);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addFixedDelayTask(this::refresh, interval);
    }

    void refresh() {
        jdbc.sql(SLOT)
                .param("slot", slotName)
                .query((rs, n) -> {
                    active.set(rs.getBoolean("active") ? 1 : 0);
                    walStatus.set(rs.getString("wal_status"));
                    failover.set(rs.getBoolean("failover") ? 1 : 0);
                    long lag = rs.getLong("lag_bytes");
                    lagBytes.set(rs.wasNull() ? -1 : lag);
                    return true;
                })
                .optional()
                .ifPresentOrElse(found -> {}, () -> {
                    active.set(0);
                    failover.set(0);
                    walStatus.set("missing");
                    lagBytes.set(-1);
                });
    }

    /** The slot's wal_status as last seen: reserved, extended, unreserved, lost, or missing. */
    public String walStatus() {
        return walStatus.get();
    }

    @Override
    public Health health() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("mode", "cdc");
        details.put("role", relay.role().name().toLowerCase());
        details.put("streaming", relay.streaming());
        details.put("slot", slotName);
        details.put("slotActive", active.get() == 1);
        details.put("slotFailover", failover.get() == 1);
        if (relay.server() != null) {
            details.put("server", relay.server());
        }
        details.put("walStatus", walStatus.get());
        details.put("lagBytes", lagBytes.get());
        if (relay.lastError() != null) {
            details.put("lastError", relay.lastError());
        }
        boolean lost = "lost".equals(walStatus.get());
        return (lost ? Health.down() : Health.up()).withDetails(details).build();
    }
}
