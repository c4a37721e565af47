package dev.outbox.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The reconciler run continuously: every {@link #tick()} takes a transaction horizon ({@link Reconciler#sample()}),
 * judges the window up to the newest horizon older than the latency objective, and checks the problems it still
 * lists again. The first window begins at the oldest row the outbox keeps, so a (re)started job judges everything
 * retained once, then follows. Memory: the horizons of one objective (one per tick) and at most {@code maxProblems}
 * problems and as many balance mismatches. Not thread-safe: one scheduler thread ticks; {@link #state()} may be read
 * from any thread.
 */
public final class ReconcileLoop {

    /**
     * What the job knows now.
     *
     * @param lastWindow the newest judged window ({@code null} before the first)
     * @param notJudged  outbox rows not dead-lettered from the next window on: in flight, or waiting to be judged
     * @param totals     events per verdict over every window judged since the job started
     * @param problems   open problems, each judged again every tick, at most {@code maxProblems}
     * @param mismatches open balance mismatches, likewise
     * @param omitted    problems and mismatches found but not listed (beyond the cap) since the job started
     */
    public record State(
            Reconciler.Window lastWindow,
            long notJudged,
            Map<Verdict, Long> totals,
            List<Reconciler.Problem> problems,
            List<Reconciler.BalanceMismatch> mismatches,
            long omitted) {

        public long open(Verdict verdict) {
            return problems.stream().filter(p -> p.verdict() == verdict).count();
        }
    }

    private final Reconciler reconciler;
    private final Duration objective;
    private final int maxProblems;
    private final Deque<Reconciler.Sample> horizons = new ArrayDeque<>();
    private final Map<Verdict, Long> totals = new EnumMap<>(Verdict.class);
    private long cursor = -1;
    private long omitted;
    private volatile State state = new State(null, 0, Map.of(), List.of(), List.of(), 0);

    /**
     * @param objective the pipeline's latency objective: an event this much older than its commit must be applied or
     *                  accounted for; must exceed the safety net's grace + a lease + the consumer's retries
     */
    public ReconcileLoop(Reconciler reconciler, Duration objective, int maxProblems) {
        this.reconciler = reconciler;
        this.objective = objective;
        this.maxProblems = maxProblems;
    }

    /** @return the window judged by this tick, {@code null} when none was due */
    public Reconciler.Window tick() {
        if (cursor < 0) {
            cursor = reconciler.oldest();
        }
        Reconciler.Sample now = reconciler.sample();
        horizons.addLast(now);
        Reconciler.Sample due = null;
        while (!horizons.isEmpty() && !horizons.peekFirst().at().plus(objective).isAfter(now.at())) {
            due = horizons.pollFirst();
        }
        Reconciler.Window window = null;
        if (due != null && due.xmin() > cursor) {
            window = reconciler.reconcile(cursor, due.xmin(), due.at());
            cursor = due.xmin();
            window.counts().forEach((verdict, n) -> totals.merge(verdict, n, Long::sum));
            omitted += window.omitted();
        }
        State before = state;
        Map<UUID, Reconciler.Problem> problems = new LinkedHashMap<>();
        reconciler.recheck(before.problems()).forEach(p -> problems.put(p.eventId(), p));
        Map<UUID, Reconciler.BalanceMismatch> mismatches = new LinkedHashMap<>();
        reconciler.recheckBalances(before.mismatches()).forEach(m -> mismatches.put(m.paymentId(), m));
        if (window != null) {
            window.problems().forEach(p -> keep(problems, p.eventId(), p));
            window.mismatches().forEach(m -> keep(mismatches, m.paymentId(), m));
        }
        state = new State(
                window != null ? window : before.lastWindow(),
                reconciler.notJudged(cursor),
                Map.copyOf(totals),
                List.copyOf(problems.values()),
                List.copyOf(mismatches.values()),
                omitted);
        return window;
    }

    public State state() {
        return state;
    }

    /** The committed-before time of the newest judged window, {@code null} before the first. */
    public Instant judgedUpTo() {
        Reconciler.Window last = state.lastWindow();
        return last == null ? null : last.committedBefore();
    }

    /** Lists {@code value} under {@code key} unless the list is full; counts what it leaves out. */
    private <T> void keep(Map<UUID, T> listed, UUID key, T value) {
        if (listed.size() < maxProblems || listed.containsKey(key)) {
            listed.put(key, value);
        } else {
            omitted++;
        }
    }
}
