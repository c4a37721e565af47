package dev.outbox.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import dev.outbox.payments.outbox.OutboxEvent;

/**
 * Commits payments of two events each, one transaction after another (by default 50 payments per transaction, 20 ms
 * apart), on its own thread until stopped, and at most {@code maxEvents} events (by default 100,000).
 */
final class OutboxWriterThread implements AutoCloseable {

    private final DataSource dataSource;
    private final int paymentsPerTransaction;
    private final Duration pause;
    private final int maxEvents;
    private final List<OutboxEvent> written = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private volatile boolean stopped;
    private Future<?> running;

    OutboxWriterThread(DataSource dataSource) {
        this(dataSource, 50, Duration.ofMillis(20), 100_000);
    }

    OutboxWriterThread(DataSource dataSource, int paymentsPerTransaction, Duration pause, int maxEvents) {
        this.dataSource = dataSource;
        this.paymentsPerTransaction = paymentsPerTransaction;
        this.pause = pause;
        this.maxEvents = maxEvents;
    }

    void start() {
        running = thread.submit(() -> {
            while (!stopped && written.size() < maxEvents) {
                written.addAll(OutboxRows.insert(dataSource, paymentsPerTransaction, 2));
                Thread.sleep(pause.toMillis());
            }
            return null;
        });
    }

    /** Whether it stopped writing by itself: it failed ({@link #stop} throws why) or wrote its maximum. */
    boolean done() {
        return running.isDone();
    }

    /** Events committed so far. */
    int count() {
        return written.size();
    }

    /** Stops after the transaction under way; every event it committed (a failed write fails the test). */
    List<OutboxEvent> stop() throws Exception {
        stopped = true;
        running.get(30, TimeUnit.SECONDS);
        synchronized (written) {
            return List.copyOf(written);
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.shutdownNow();
    }
}
