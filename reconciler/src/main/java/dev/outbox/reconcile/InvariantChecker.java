package dev.outbox.reconcile;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The pipeline's invariant over everything the databases keep, once the pipeline has drained: the reconcile job's own
 * judgement ({@link Reconciler}) of one window holding every outbox row, plus what only a whole view shows:
 * <ul>
 * <li>every outbox event that is not dead-lettered has exactly one ledger effect for the consumer;</li>
 * <li>no ledger effect without its event;</li>
 * <li>for every payment, ledger total == amount - refunds;</li>
 * <li>no outbox row left pending;</li>
 * <li>duplicates on the wire (records minus distinct event ids) are reported, not judged: they are allowed.</li>
 * </ul>
 * Used by the failure tests and the soak, and from the local run's command line ({@code check}).
 */
public final class InvariantChecker {

    /** What the checker saw. {@link #holds()} is the verdict; {@link #problems()} says what broke. */
    public record Report(
            long payments,
            long events,
            long published,
            long pending,
            long deadLettered,
            long ledgerEntries,
            long duplicateEffects,
            long missingEffects,
            long orphanEffects,
            long balanceMismatches,
            long wireRecords,
            long wireDistinct,
            List<String> problems) {

        public boolean holds() {
            return problems.isEmpty();
        }

        public long wireDuplicates() {
            return wireRecords - wireDistinct;
        }

        /** Deliveries the inbox turned into no-ops: every record on the wire either became an effect or was one. */
        public long ignoredByInbox() {
            return wireRecords == 0 ? 0 : wireRecords - ledgerEntries;
        }

        @Override
        public String toString() {
            return String.format(
                    "payments=%d events=%d published=%d pending=%d dead-lettered=%d ledger-entries=%d "
                            + "duplicate-effects=%d missing-effects=%d orphan-effects=%d balance-mismatches=%d "
                            + "wire-records=%d wire-duplicates=%d ignored-by-inbox=%d -> %s%s",
                    payments,
                    events,
                    published,
                    pending,
                    deadLettered,
                    ledgerEntries,
                    duplicateEffects,
                    missingEffects,
                    orphanEffects,
                    balanceMismatches,
                    wireRecords,
                    wireDuplicates(),
                    ignoredByInbox(),
                    holds() ? "HOLDS" : "BROKEN",
                    holds() ? "" : " " + problems);
        }
    }

    private static final int CHUNK = 1_000;

    /** A wire that finds nothing: the check without the topic. */
    private static final Wire NO_WIRE = new Wire() {
        @Override
        public Map<UUID, String> findOnTopic(Collection<Event> events) {
            return Map.of();
        }

        @Override
        public Map<UUID, String> findDeadLettered(Collection<Event> events) {
            return Map.of();
        }
    };

    private InvariantChecker() {}

    /**
     * @param kafka client properties (bootstrap servers and credentials) to read the wire, or {@code null} to skip
     *              the topic
     */
    public static Report check(
            Connection paymentsDb, Connection accountingDb, String consumer, Map<String, Object> kafka, String topic) {
        JdbcClient payments = JdbcClient.create(new SingleConnectionDataSource(paymentsDb, true));
        JdbcClient accounting = JdbcClient.create(new SingleConnectionDataSource(accountingDb, true));
        Reconciler.Window all;
        try (KafkaWire wire = kafka == null ? null : new KafkaWire(kafka, topic, 1_000_000, Duration.ofSeconds(60))) {
            Reconciler reconciler = new Reconciler(
                    payments, accounting, wire == null ? NO_WIRE : wire, new Reconciler.Settings(consumer, CHUNK, 10));
            all = reconciler.reconcile(reconciler.oldest(), Long.MAX_VALUE, Instant.now());
        }
        long[] outbox = payments.sql("""
                        SELECT count(*), count(*) FILTER (WHERE published),
                               count(*) FILTER (WHERE dead_lettered_at IS NOT NULL)
                          FROM outbox_delivery
                        """)
                .query((rs, n) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)})
                .single();
        long paymentCount =
                payments.sql("SELECT count(*) FROM payments").query(Long.class).single();
        long entries = accounting
                .sql("SELECT count(*) FROM ledger_entries WHERE consumer_name = :consumer")
                .param("consumer", consumer)
                .query(Long.class)
                .single();
        long orphans = orphans(payments, accounting, consumer);

        long duplicates = all.count(Verdict.APPLIED_MORE_THAN_ONCE);
        long missing = all.count(Verdict.MISSING_ON_TOPIC)
                + all.count(Verdict.ON_TOPIC_NOT_APPLIED)
                + all.count(Verdict.DEAD_LETTERED_BY_CONSUMER)
                + all.count(Verdict.PARKED);
        long pending = outbox[0] - outbox[1] - outbox[2];
        List<String> problems = new ArrayList<>();
        if (duplicates > 0) {
            problems.add(duplicates + " events with more than one ledger effect");
        }
        if (missing > 0) {
            problems.add(missing + " events without a ledger effect (lost or not drained): " + all.problems());
        }
        if (orphans > 0) {
            problems.add(orphans + " ledger effects without an outbox event");
        }
        if (!all.mismatches().isEmpty()) {
            problems.add(all.mismatches().size() + " payments whose ledger total != amount - refunds");
        }
        if (pending > 0) {
            problems.add(pending + " outbox rows still pending");
        }
        long[] wire = kafka == null ? new long[2] : wire(kafka, topic);
        return new Report(
                paymentCount,
                outbox[0],
                outbox[1],
                pending,
                outbox[2],
                entries,
                duplicates,
                missing,
                orphans,
                all.mismatches().size(),
                wire[0],
                wire[1],
                problems);
    }

    /** Ledger effects whose event is not in the outbox, read a chunk of event ids at a time. */
    private static long orphans(JdbcClient payments, JdbcClient accounting, String consumer) {
        long orphans = 0;
        for (List<UUID> chunk = ledgerEvents(accounting, consumer, new UUID(0, 0));
                !chunk.isEmpty();
                chunk = chunk.size() < CHUNK
                        ? List.of()
                        : ledgerEvents(accounting, consumer, chunk.get(chunk.size() - 1))) {
            long known = payments.sql("SELECT count(*) FROM outbox_reconcile WHERE id = ANY(CAST(:ids AS uuid[]))")
                    .param("ids", chunk.toArray(UUID[]::new))
                    .query(Long.class)
                    .single();
            orphans += chunk.size() - known;
        }
        return orphans;
    }

    private static List<UUID> ledgerEvents(JdbcClient accounting, String consumer, UUID after) {
        return accounting
                .sql("""
                        SELECT event_id FROM ledger_entries
                         WHERE consumer_name = :consumer AND event_id > :after
                         ORDER BY event_id
                         LIMIT :limit
                        """)
                .param("consumer", consumer)
                .param("after", after)
                .param("limit", CHUNK)
                .query(UUID.class)
                .list();
    }

    /** Records on the topic, and distinct event ids among them (read from the beginning to the current end). */
    public static long[] wire(Map<String, Object> kafka, String topic) {
        List<ConsumerRecord<String, String>> records = TopicScan.toEnd(kafka, topic, Duration.ofSeconds(60));
        return new long[] {
            records.size(),
            records.stream()
                    .map(TopicScan::id)
                    .filter(java.util.Objects::nonNull)
                    .distinct()
                    .count()
        };
    }
}
