package dev.outbox.payments.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;

import dev.outbox.payments.jdbc.Write;
import dev.outbox.payments.jdbc.Writes;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs an operation at most once per (client, Idempotency-Key). The key, the operation's writes and its
 * response commit in one transaction, so a retry either finds the finished response or finds nothing at all:
 * <ul>
 * <li>same key, same request: the stored response, byte for byte;</li>
 * <li>same key, another request: 422, nothing written;</li>
 * <li>same key while the first request is still running: waits for it, then replays it (409 if it waits
 * longer than the configured lock timeout).</li>
 * </ul>
 */
@Service
public final class IdempotentOperations {

    private final IdempotencyKeys keys;
    private final Writes writes;
    private final TransactionTemplate transaction;
    private final IdempotencyProperties settings;
    private final Clock clock;

    IdempotentOperations(
            IdempotencyKeys keys,
            Writes writes,
            TransactionTemplate transaction,
            IdempotencyProperties settings,
            Clock clock) {
        this.keys = keys;
        this.writes = writes;
        this.transaction = transaction;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Claims the key (one round trip, waiting at most the lock timeout for a concurrent holder), then runs the
     * operation, which may read and lock what it needs, and sends the writes of its outcome together with the key's
     * completion (one round trip) before the commit.
     *
     * @param fingerprintParts the operation name and its normalized inputs; equal parts mean the same request
     */
    public StoredResponse execute(String client, String key, Supplier<Outcome> operation, String... fingerprintParts) {
        String hash = fingerprint(fingerprintParts);
        try {
            return transaction.execute(tx -> {
                Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
                if (!keys.claim(
                        client,
                        key,
                        hash,
                        now,
                        now.plus(settings.ttl()),
                        settings.lockTimeout().toMillis())) {
                    IdempotencyKeys.Recorded recorded = keys.find(client, key).orElseThrow();
                    if (!recorded.requestHash().equals(hash)) {
                        throw new IdempotencyConflict(
                                IdempotencyConflict.Kind.REUSED,
                                "This Idempotency-Key was already used with a different request.");
                    }
                    return recorded.response().asReplay();
                }
                Outcome outcome = operation.get();
                List<Write> all = new ArrayList<>(outcome.writes());
                all.add(keys.completion(client, key, outcome.response()));
                writes.send(all);
                return outcome.response();
            });
        } catch (PessimisticLockingFailureException e) {
            throw new IdempotencyConflict(
                    IdempotencyConflict.Kind.IN_PROGRESS,
                    "A request with this Idempotency-Key is still being processed; retry later.");
        }
    }

    static String fingerprint(String... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                byte[] bytes = part == null ? new byte[0] : part.getBytes(StandardCharsets.UTF_8);
                digest.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                digest.update(bytes);
                digest.update(part == null ? (byte) 0 : (byte) 1);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
