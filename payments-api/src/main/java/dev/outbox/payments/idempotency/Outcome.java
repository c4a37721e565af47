package dev.outbox.payments.idempotency;

import java.util.List;

import dev.outbox.payments.jdbc.Write;

/**
 * What an idempotent operation decided: the response to store and send, and the writes that carry the decision out.
 * {@link IdempotentOperations} sends the writes together with the key's completion, in one round trip, inside the
 * transaction that claimed the key.
 */
public record Outcome(StoredResponse response, List<Write> writes) {

    public Outcome {
        writes = List.copyOf(writes);
    }
}
