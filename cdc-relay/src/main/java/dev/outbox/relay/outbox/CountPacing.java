package dev.outbox.relay.outbox;

/**
 * When the backlog may be counted again. The count reads every row from the claim floor on, so its cost grows with the
 * backlog: after a count that took {@code d}, the next one starts no sooner than {@code SPACING * d} after this one
 * started. The counts then keep PostgreSQL busy at most 1/{@code SPACING} of the time whatever the backlog (a count of
 * 1,000,000 rows that takes 3 s runs once a minute), and as often as the monitor runs while it is small. Times are
 * {@link System#nanoTime()} readings.
 */
final class CountPacing {

    /** A count keeps PostgreSQL busy at most one part in this many. */
    static final int SPACING = 20;

    private boolean counted;
    private long nextAt;

    /** @return whether a count may start at {@code now} */
    boolean due(long now) {
        return !counted || now - nextAt >= 0;
    }

    /** Records a count that started at {@code start} and ended at {@code end}. */
    void counted(long start, long end) {
        counted = true;
        nextAt = start + SPACING * Math.max(0, end - start);
    }
}
