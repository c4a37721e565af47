package dev.outbox.payments.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.function.Supplier;

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
    private final TransactionTemplate transaction;
    private final IdempotencyProperties settings;
    private final Clock clock;

    IdempotentOperations(
            IdempotencyKeys keys, TransactionTemplate transaction, IdempotencyProperties settings, Clock clock) {
        this.keys = keys;
        this.transaction = transaction;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * @param fingerprintParts the operation name and its normalized inputs; equal parts mean the same request
     */
    public StoredResponse execute(
            String client, String key, Supplier<StoredResponse> operation, String... fingerprintParts) {
        String hash = fingerprint(fingerprintParts);
        try {
            return transaction.execute(tx -> {
                keys.limitLockWait(settings.lockTimeout().toMillis());
                Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
                if (!keys.claim(client, key, hash, now, now.plus(settings.ttl()))) {
                    IdempotencyKeys.Recorded recorded = keys.find(client, key).orElseThrow();
                    if (!recorded.requestHash().equals(hash)) {
                        throw new IdempotencyConflict(
                                IdempotencyConflict.Kind.REUSED,
                                "This Idempotency-Key was already used with a different request.");
                    }
                    return recorded.response().asReplay();
                }
                StoredResponse response = operation.get();
                keys.complete(client, key, response);
                return response;
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
