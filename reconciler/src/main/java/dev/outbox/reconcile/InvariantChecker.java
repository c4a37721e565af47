package dev.outbox.reconcile;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The pipeline's invariant, checked from outside against the two databases (and, optionally, the topic):
 * <ul>
 * <li>every outbox event that is not dead-lettered has exactly one ledger effect for the consumer;</li>
 * <li>no ledger effect without its event;</li>
 * <li>for every payment, ledger total == amount - refunds;</li>
 * <li>no outbox row left pending (after the pipeline drained);</li>
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

    private InvariantChecker() {}

    /**
     * @param kafka client properties (bootstrap servers and credentials) to count the wire, or {@code null} to skip
     *              the topic
     */
    public static Report check(
            Connection paymentsDb, Connection accountingDb, String consumer, Map<String, Object> kafka, String topic)
            throws SQLException {
        Map<UUID, BigDecimal> net = new HashMap<>();
        query(
                paymentsDb,
                "SELECT id, amount - refunded_amount FROM payments",
                rs -> net.put(rs.getObject(1, UUID.class), rs.getBigDecimal(2)));
        Set<UUID> expectedEffects = new HashSet<>();
        long[] outbox = new long[4];
        query(paymentsDb, "SELECT id, published, dead_lettered_at IS NOT NULL FROM outbox_delivery", rs -> {
            outbox[0]++;
            boolean published = rs.getBoolean(2);
            boolean dead = rs.getBoolean(3);
            outbox[1] += published ? 1 : 0;
            outbox[3] += dead ? 1 : 0;
            outbox[2] += !published && !dead ? 1 : 0;
            if (!dead) {
                expectedEffects.add(rs.getObject(1, UUID.class));
            }
        });
        Map<UUID, Integer> effects = new HashMap<>();
        Map<UUID, BigDecimal> ledger = new HashMap<>();
        long[] entries = new long[1];
        query(accountingDb, "SELECT consumer_name, event_id, payment_id, amount FROM ledger_entries", rs -> {
            if (consumer.equals(rs.getString(1))) {
                entries[0]++;
                effects.merge(rs.getObject(2, UUID.class), 1, Integer::sum);
                ledger.merge(rs.getObject(3, UUID.class), rs.getBigDecimal(4), BigDecimal::add);
            }
        });

        List<String> problems = new ArrayList<>();
        long duplicates = effects.values().stream().filter(n -> n > 1).count();
        long missing =
                expectedEffects.stream().filter(id -> !effects.containsKey(id)).count();
        long orphans = effects.keySet().stream()
                .filter(id -> !expectedEffects.contains(id))
                .count();
        long mismatches = net.entrySet().stream()
                .filter(e -> ledger.getOrDefault(e.getKey(), BigDecimal.ZERO).compareTo(e.getValue()) != 0)
                .count();
        if (duplicates > 0) {
            problems.add(duplicates + " events with more than one ledger effect");
        }
        if (missing > 0) {
            problems.add(missing + " events without a ledger effect (lost or not drained)");
        }
        if (orphans > 0) {
            problems.add(orphans + " ledger effects without an outbox event");
        }
        if (mismatches > 0) {
            problems.add(mismatches + " payments whose ledger total != amount - refunds");
        }
        if (outbox[2] > 0) {
            problems.add(outbox[2] + " outbox rows still pending");
        }
        long[] wire = kafka == null ? new long[2] : wire(kafka, topic);
        return new Report(
                net.size(),
                outbox[0],
                outbox[1],
                outbox[2],
                outbox[3],
                entries[0],
                duplicates,
                missing,
                orphans,
                mismatches,
                wire[0],
                wire[1],
                problems);
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

    private interface Row {
        void accept(ResultSet rs) throws SQLException;
    }

    private static void query(Connection c, String sql, Row row) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                row.accept(rs);
            }
        }
    }
}
