package dev.outbox.relay.cdc;

import java.util.Map;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnector;
import org.apache.kafka.common.config.ConfigValue;

/**
 * Debezium's PostgreSQL connector without its start-up connection check. Before every start the engine validates the
 * connector's configuration, and {@link PostgresConnector} validates it by opening a connection of its own (a SCRAM
 * handshake) to run {@code SELECT version()} and a role query, then closing it: work on the restart's path that the
 * relay has done already, with the same credentials, before it starts an engine (its leadership connection holds the
 * slot's lock on that primary, and {@link StreamHorizons#prepare} has read the slot). Every field of the configuration
 * is still validated. A wrong password fails the leadership connection before any engine starts, and a role without
 * REPLICATION fails the task's replication connection, each with PostgreSQL's own error (Debezium's check only logs
 * the missing role).
 */
public final class RelayPostgresConnector extends PostgresConnector {

    @Override
    protected void validateConnection(Map<String, ConfigValue> configValues, Configuration config) {
        // connected and checked already: see the class comment
    }
}
