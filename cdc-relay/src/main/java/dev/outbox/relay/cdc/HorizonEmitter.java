package dev.outbox.relay.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.outbox.security.ErrorText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * While the leader's engine runs, emits its slot's horizon message every {@code relay.cdc.horizon-interval} on the
 * server the stream reads (the primary the leadership lock was taken on), through a connection of its own. An idle
 * pipeline moves too: each message is WAL the stream reads. A failed emission is tried again at the next tick; the
 * horizon then only moves later.
 */
final class HorizonEmitter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HorizonEmitter.class);

    private final DatabaseProperties server;
    private final String slot;
    private final ScheduledExecutorService timer;
    private Connection connection;

    HorizonEmitter(DatabaseProperties server, String slot, Duration interval) {
        this.server = server;
        this.slot = slot;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cdc-relay-horizon");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, interval.toMillis());
        timer.scheduleWithFixedDelay(this::emit, period, period, TimeUnit.MILLISECONDS);
    }

    private void emit() {
        try {
            if (connection == null) {
                Properties props = new Properties();
                props.setProperty("user", server.user());
                props.setProperty("password", server.password());
                props.setProperty("ApplicationName", "outbox-relay-horizon");
                props.setProperty("connectTimeout", "5");
                props.setProperty("socketTimeout", "10");
                connection = DriverManager.getConnection(server.jdbcUrl(), props);
            }
            StreamHorizons.emit(JdbcClient.create(new SingleConnectionDataSource(connection, true)), slot);
        } catch (SQLException | RuntimeException e) {
            log.debug("emitting the horizon of slot {} failed, trying again: {}", slot, ErrorText.sanitize(e));
            closeConnection();
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // a broken connection: nothing to give back
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeConnection();
    }
}
