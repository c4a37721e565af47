package dev.outbox.accounting.ledger;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The one owner of gap_resolutions, the audit of version gaps operators declared will never fill: rows are only
 * ever inserted, in the transaction that moves the payment past the gap, and read back for the audit.
 */
@Component
final class GapResolutions {

    private static final String RECORD = """
            INSERT INTO gap_resolutions (consumer_name, payment_id, skipped_from, skipped_to, applied, operator,
                                         principal, reason, resolved_at)
            VALUES (:consumer, :paymentId, :from, :to, :applied, :operator, :principal, :reason, :now)
            """;

    private static final String LIST = """
            SELECT payment_id, skipped_from, skipped_to, applied, operator, principal, reason, resolved_at
              FROM gap_resolutions
             WHERE consumer_name = :consumer
               AND (CAST(:paymentId AS uuid) IS NULL OR payment_id = CAST(:paymentId AS uuid))
             ORDER BY resolved_at DESC, id DESC
             LIMIT :limit
            """;

    /**
     * @param operator  the name the operator gave
     * @param principal the credential's principal the request authenticated as
     * @param applied   parked events applied once the gap was skipped
     */
    record Resolution(
            UUID paymentId,
            long skippedFrom,
            long skippedTo,
            int applied,
            String operator,
            String principal,
            String reason,
            Instant resolvedAt) {}

    private final JdbcClient jdbc;

    GapResolutions(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Must run in the transaction that skips the gap. */
    void record(String consumer, Resolution r) {
        jdbc.sql(RECORD)
                .param("consumer", consumer)
                .param("paymentId", r.paymentId())
                .param("from", r.skippedFrom())
                .param("to", r.skippedTo())
                .param("applied", r.applied())
                .param("operator", r.operator())
                .param("principal", r.principal())
                .param("reason", r.reason())
                .param("now", Timestamp.from(r.resolvedAt()))
                .update();
    }

    /** Newest first, of one payment or all ({@code paymentId} null). */
    List<Resolution> list(String consumer, UUID paymentId, int limit) {
        return jdbc.sql(LIST)
                .param("consumer", consumer)
                .param("paymentId", paymentId)
                .param("limit", limit)
                .query((rs, n) -> new Resolution(
                        rs.getObject("payment_id", UUID.class),
                        rs.getLong("skipped_from"),
                        rs.getLong("skipped_to"),
                        rs.getInt("applied"),
                        rs.getString("operator"),
                        rs.getString("principal"),
                        rs.getString("reason"),
                        rs.getTimestamp("resolved_at").toInstant()))
                .list();
    }
}
