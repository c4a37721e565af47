package dev.outbox.relay.outbox;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CountPacingTests {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final CountPacing pacing = new CountPacing();

    @Test
    void theFirstCountIsDueAtOnceWhateverTheClockReads() {
        assertThat(pacing.due(Long.MIN_VALUE)).isTrue();
        assertThat(pacing.due(0)).isTrue();
        assertThat(pacing.due(Long.MAX_VALUE)).isTrue();
    }

    @Test
    void aCountThatTookThreeSecondsIsNextDueAMinuteAfterItStarted() {
        long start = 7 * SECOND;
        pacing.counted(start, start + 3 * SECOND);

        assertThat(pacing.due(start + 3 * SECOND)).isFalse();
        assertThat(pacing.due(start + 60 * SECOND - 1)).isFalse();
        assertThat(pacing.due(start + 60 * SECOND)).isTrue();
        assertThat(pacing.due(start + 61 * SECOND)).isTrue();
    }

    @Test
    void aQuickCountLeavesTheNextToTheMonitorInterval() {
        pacing.counted(0, 1_000);

        assertThat(pacing.due(CountPacing.SPACING * 1_000)).isTrue();
        assertThat(pacing.due(CountPacing.SPACING * 1_000 - 1)).isFalse();
    }

    @Test
    void countsKeepPostgresBusyAtMostOnePartInTheSpacing() {
        long now = -5 * SECOND; // nanoTime may be negative and wraps: only differences count
        long busy = 0;
        long monitorInterval = SECOND / 2;
        long end = now + 600 * SECOND;
        for (; now < end; now += monitorInterval) {
            if (pacing.due(now)) {
                long took = 2 * SECOND;
                pacing.counted(now, now + took);
                busy += took;
                now += took;
            }
        }
        assertThat((double) busy / (600 * SECOND)).isLessThanOrEqualTo(1.0 / CountPacing.SPACING);
        assertThat((double) busy / (600 * SECOND)).isGreaterThan(0.8 / CountPacing.SPACING);
    }

    @Test
    void aClockThatWrapsStillPacesByTheDifference() {
        long start = Long.MAX_VALUE - SECOND;
        pacing.counted(start, start + SECOND / 10);

        assertThat(pacing.due(start + SECOND)).isFalse(); // wrapped past Long.MAX_VALUE
        assertThat(pacing.due(start + 2 * SECOND)).isTrue();
    }
}
