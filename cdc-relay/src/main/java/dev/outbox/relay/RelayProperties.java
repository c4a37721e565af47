package dev.outbox.relay;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param mode            {@code cdc} (default), {@code polling} or {@code auto}; anything else fails the start-up
 * @param monitorInterval how often the backlog, the slot and (auto mode) the need to fall back are looked at
 */
@ConfigurationProperties("relay")
public record RelayProperties(
        @DefaultValue("cdc") Mode mode, @DefaultValue("5s") Duration monitorInterval) {

    /** {@code auto}: cdc, falling back to polling when logical replication is unavailable or the slot is lost. */
    public enum Mode {
        cdc,
        polling,
        auto
    }
}
