package dev.outbox.payments.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * One integration event as stored in outbox_messages. Its id is generated once, before the transaction, and is
 * the consumers' dedup key on every redelivery.
 */
public record OutboxEvent(
        UUID id,
        String aggregateType,
        UUID aggregateId,
        long aggregateVersion,
        String eventType,
        int schemaVersion,
        String payloadJson,
        String traceParent,
        Instant occurredAt) {}
