package dev.outbox.relay.polling;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Capped exponential backoff, 2^min(attempts, 9) x base up to the cap, with "equal jitter": half
 * the delay is fixed, half random, so instances that failed together do not retry together. Computed when the
 * retry is scheduled and persisted in next_attempt_at.
 */
final class RetrySchedule {

    private final Duration base;
    private final Duration cap;

    RetrySchedule(Duration base, Duration cap) {
        this.base = base;
        this.cap = cap;
    }

    Duration delayAfter(int attempts) {
        long exponential = base.toMillis() << Math.min(Math.max(attempts, 0), 9);
        long delay = Math.min(exponential, cap.toMillis());
        long half = delay / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(delay - half + 1));
    }
}
