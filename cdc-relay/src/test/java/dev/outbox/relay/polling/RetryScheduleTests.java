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

    /** Both ends of the range are reached: the jitter spans the whole random half, its top included. */
    @Test
    void theRandomHalfReachesBothEnds() {
        RetrySchedule tiny = new RetrySchedule(Duration.ofMillis(1), Duration.ofMillis(2));
        Set<Long> delays = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            delays.add(tiny.delayAfter(1).toMillis());
        }
        assertThat(delays).containsExactlyInAnyOrder(1L, 2L);
    }

    /** The polling relay's schedule is built from its settings. */
    @Test
    void thePollingSettingsMakeTheSchedule() {
        PollingProperties settings = new PollingProperties(
                2,
                100,
                Duration.ofSeconds(30),
                Duration.ofMillis(500),
                12,
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                false);
        for (int i = 0; i < 50; i++) {
            assertThat(settings.retries().delayAfter(0).toMillis()).isBetween(1000L, 2000L);
            assertThat(settings.retries().delayAfter(3).toMillis()).isBetween(2500L, 5000L);
        }
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
