package dev.outbox.relay.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.outbox.security.ErrorText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * While the leader's engine runs, emits its slot's horizon message on the server the stream reads (the primary the
 * leadership lock was taken on), through a connection of its own: every {@value #BUSY_MILLIS} ms while the stream
 * delivers events (what a restart sends again is what came after the last stored horizon), and every
 * {@code relay.cdc.horizon-interval} when it is idle, so that an idle pipeline moves too (each message is WAL the stream
 * reads) without writing WAL ten times a second. A failed emission is tried again at the next tick; the horizon then
 * only moves later.
 */
final class HorizonEmitter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HorizonEmitter.class);

    /** How often a horizon is emitted while the stream delivers events. */
    static final long BUSY_MILLIS = 100;

    private final DatabaseProperties server;
    private final String slot;
    private final long idleNanos;
    private final AtomicBoolean delivered;
    private final ScheduledExecutorService timer;
    private Connection connection;
    private long lastEmitted = System.nanoTime();

    /**
     * @param interval  the longest time between two horizons (an idle stream)
     * @param delivered set by the stream when Kafka acknowledged events: the next horizon is due after
     *                  {@value #BUSY_MILLIS} ms
     */
    HorizonEmitter(DatabaseProperties server, String slot, Duration interval, AtomicBoolean delivered) {
        this.server = server;
        this.slot = slot;
        this.idleNanos = interval.toNanos();
        this.delivered = delivered;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cdc-relay-horizon");
            t.setDaemon(true);
            return t;
        });
        long tick = Math.max(1, Math.min(BUSY_MILLIS, interval.toMillis()));
        timer.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        if (System.nanoTime() - lastEmitted >= idleNanos || delivered.getAndSet(false)) {
            lastEmitted = System.nanoTime();
            emit();
        }
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
