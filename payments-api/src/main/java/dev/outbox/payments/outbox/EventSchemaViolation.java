package dev.outbox.payments.outbox;

import java.util.List;

/**
 * A payload this service was about to write breaks its event's published schema: a bug here, not the caller's. It
 * rolls the transaction back and is answered as a 500 problem; its message names the rules broken, never a value.
 */
public final class EventSchemaViolation extends IllegalStateException {

    public EventSchemaViolation(String eventType, int schemaVersion, List<String> violations) {
        super(eventType + " v" + schemaVersion + " payload breaks its schema: " + String.join(", ", violations));
    }
}
