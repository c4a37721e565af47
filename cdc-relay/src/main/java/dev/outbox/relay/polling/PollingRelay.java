package dev.outbox.relay.polling;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.outbox.security.ErrorText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * {@code relay.mode=polling}: N worker threads, each looping claim-publish-mark with its own worker id and a
 * fresh statement per step (no long-lived transaction), idling when a claim came back empty. Any number of
 * relay processes may run side by side; SKIP LOCKED and the leases keep their claims disjoint.
 */
public final class PollingRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PollingRelay.class);

    private final PollingProperties settings;
    private final Supplier<PollingWorker> workers;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final boolean autoStartup;
    private volatile boolean running;

    PollingRelay(PollingProperties settings, Supplier<PollingWorker> workers, boolean autoStartup) {
        this.settings = settings;
        this.workers = workers;
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    String lastError() {
        return lastError.get();
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        for (int i = 0; i < settings.workers(); i++) {
            PollingWorker worker = workers.get();
            Thread thread = new Thread(() -> loop(worker), "polling-relay-" + i);
            threads.add(thread);
            thread.start();
        }
        log.info("polling relay started with {} workers", settings.workers());
    }

    private void loop(PollingWorker worker) {
        while (running) {
            int claimed;
            try {
                claimed = worker.runOnce();
                lastError.set(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                lastError.set(ErrorText.sanitize(e));
                log.warn("polling iteration failed: {}", ErrorText.sanitize(e));
                claimed = 0;
            }
            if (claimed == 0) {
                try {
                    Thread.sleep(settings.idleSleep().toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public synchronized void stop() {
        running = false;
        threads.forEach(Thread::interrupt);
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        threads.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
