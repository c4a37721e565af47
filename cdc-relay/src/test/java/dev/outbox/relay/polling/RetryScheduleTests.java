package dev.outbox.relay.polling;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The retry delay: 2^min(attempts, 9) x base, capped, half fixed and half random. */
class RetryScheduleTests {

    final RetrySchedule schedule = new RetrySchedule(Duration.ofSeconds(1), Duration.ofSeconds(300));

    @Test
    void doublesPerAttemptWithEqualJitter() {
        for (int attempts = 0; attempts <= 8; attempts++) {
            long full = 1000L << attempts;
            for (int i = 0; i < 50; i++) {
                assertThat(schedule.delayAfter(attempts).toMillis())
                        .as("attempt " + attempts)
                        .isBetween(full / 2, full);
            }
        }
    }

    @Test
    void isCappedAndTheExponentStopsAtNine() {
        for (int attempts : new int[] {9, 12, 40, Integer.MAX_VALUE}) {
            assertThat(schedule.delayAfter(attempts).toMillis()).isBetween(150_000L, 300_000L);
        }
        RetrySchedule uncapped = new RetrySchedule(Duration.ofMillis(10), Duration.ofDays(1));
        assertThat(uncapped.delayAfter(30).toMillis()).isBetween(2560L, 5120L);
        assertThat(schedule.delayAfter(-3).toMillis()).isBetween(500L, 1000L);
    }

    @Test
    void instancesThatFailedTogetherDoNotRetryTogether() {
        Set<Duration> delays = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            delays.add(schedule.delayAfter(5));
        }
        assertThat(delays).hasSizeGreaterThan(10);
    }
}
