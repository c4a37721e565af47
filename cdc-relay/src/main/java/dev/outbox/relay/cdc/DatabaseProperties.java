package dev.outbox.relay.cdc;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/** The payments database as the relay reaches it; the JDBC pool and the Debezium connector share these. */
@ConfigurationProperties("relay.db")
public record DatabaseProperties(
        @DefaultValue("127.0.0.1") String host,
        @DefaultValue("5432") int port,
        @DefaultValue("payments") String name,
        @DefaultValue("postgres") String user,
        @DefaultValue("postgres") String password) {

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + name;
    }
}
