package dev.outbox.reconcile;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/** Where on the wire the events the consumer did not apply stopped: the events topic, or its dead-letter topic. */
public interface Wire {

    /** An event looked for: its id header, its key (the payment id) and when it occurred (no record is older). */
    record Event(UUID id, UUID paymentId, Instant occurredAt) {}

    /** @return the events found on the events topic, each with where ({@code topic partition@offset}) */
    Map<UUID, String> findOnTopic(Collection<Event> events);

    /** @return the events found on the consumer's dead-letter topic, each with where */
    Map<UUID, String> findDeadLettered(Collection<Event> events);
}
