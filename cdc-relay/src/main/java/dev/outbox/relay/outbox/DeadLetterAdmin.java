package dev.outbox.relay.outbox;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The runbook's dead-letter operations: list (payload redacted), inspect one, requeue one or a filtered set.
 * Requeue clears the mark and schedules the row now with the same id; the polling relay (or, in cdc mode, the
 * safety net after its grace period) publishes it. Every call needs the admin bearer token
 * ({@code admin.paths} in relay.yaml puts /admin/ behind {@link dev.outbox.security.AdminCredential}).
 */
@RestController
@RequestMapping("/admin/dead-letters")
final class DeadLetterAdmin {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterAdmin.class);

    private static final String LIST = """
            SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type, attempts, last_error,
                   occurred_at, dead_lettered_at, CASE WHEN :withPayload THEN payload::text END AS payload
              FROM outbox_messages
             WHERE dead_lettered_at IS NOT NULL AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
             ORDER BY dead_lettered_at, id
             LIMIT :limit
            """;

    private static final String REQUEUE = """
            UPDATE outbox_messages
               SET dead_lettered_at = NULL, attempts = 0, next_attempt_at = now(), last_error = NULL,
                   lock_id = NULL, locked_until = NULL
             WHERE dead_lettered_at IS NOT NULL
               AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
               AND (CAST(:eventType AS text) IS NULL OR event_type = CAST(:eventType AS text))
               AND (CAST(:after AS timestamptz) IS NULL OR dead_lettered_at >= CAST(:after AS timestamptz))
               AND (CAST(:before AS timestamptz) IS NULL OR dead_lettered_at < CAST(:before AS timestamptz))
            """;

    private final JdbcClient jdbc;

    DeadLetterAdmin(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping
    List<Map<String, Object>> list(@RequestParam(defaultValue = "100") int limit) {
        return query(null, false, Math.min(Math.max(limit, 1), 1000));
    }

    @GetMapping("/{id}")
    Map<String, Object> inspect(@PathVariable UUID id, @RequestParam(defaultValue = "false") boolean includePayload) {
        return query(id, includePayload, 1).stream().findFirst()
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no dead letter " + id));
    }

    @PostMapping("/{id}/requeue")
    Map<String, Integer> requeueOne(@PathVariable UUID id) {
        int n = requeue(id, null, null, null);
        if (n == 0) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no dead letter " + id);
        }
        return Map.of("requeued", n);
    }

    @PostMapping("/requeue")
    Map<String, Integer> requeueMatching(@RequestParam(required = false) String eventType,
            @RequestParam(required = false) Instant deadLetteredAfter,
            @RequestParam(required = false) Instant deadLetteredBefore) {
        if (eventType != null && !eventType.matches("[A-Za-z][A-Za-z0-9_.-]{0,63}")) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "not an event type");
        }
        return Map.of("requeued", requeue(null, eventType, deadLetteredAfter, deadLetteredBefore));
    }

    private List<Map<String, Object>> query(UUID id, boolean withPayload, int limit) {
        return jdbc.sql(LIST).param("withPayload", withPayload).param("id", id).param("limit", limit)
                .query((rs, n) -> {
                    Map<String, Object> row = new java.util.LinkedHashMap<>();
                    row.put("id", rs.getObject("id", UUID.class));
                    row.put("aggregateType", rs.getString("aggregate_type"));
                    row.put("aggregateId", rs.getObject("aggregate_id", UUID.class));
                    row.put("aggregateVersion", rs.getLong("aggregate_version"));
                    row.put("eventType", rs.getString("event_type"));
                    row.put("attempts", rs.getInt("attempts"));
                    row.put("lastError", rs.getString("last_error"));
                    row.put("occurredAt", rs.getTimestamp("occurred_at").toInstant());
                    row.put("deadLetteredAt", rs.getTimestamp("dead_lettered_at").toInstant());
                    row.put("payload", withPayload ? rs.getString("payload") : "<redacted: ?includePayload=true>");
                    return row;
                }).list();
    }

    private int requeue(UUID id, String eventType, Instant after, Instant before) {
        int n = jdbc.sql(REQUEUE)
                .param("id", id)
                .param("eventType", eventType)
                .param("after", after == null ? null : Timestamp.from(after))
                .param("before", before == null ? null : Timestamp.from(before))
                .update();
        log.info("requeued {} dead letters (id={}, eventType={}, after={}, before={})", n, id, eventType, after, before);
        return n;
    }
}
