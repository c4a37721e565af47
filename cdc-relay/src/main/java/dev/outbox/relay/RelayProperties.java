package dev.outbox.relay;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param mode {@code cdc} (default), {@code polling} or {@code auto}; anything else fails the start-up
 */
@ConfigurationProperties("relay")
public record RelayProperties(@DefaultValue("cdc") Mode mode) {

    /** {@code auto}: cdc, falling back to polling when logical replication is unavailable or the slot is lost. */
    public enum Mode { cdc, polling, auto }
}
