package dev.outbox.payments.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.function.Supplier;

import dev.outbox.payments.web.ApiException;
import dev.outbox.payments.web.ApiProperties;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.http.HttpStatus;
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
    private final ApiProperties.Idempotency settings;
    private final Clock clock;

    IdempotentOperations(IdempotencyKeys keys, TransactionTemplate transaction, ApiProperties properties,
            Clock clock) {
        this.keys = keys;
        this.transaction = transaction;
        this.settings = properties.idempotency();
        this.clock = clock;
    }

    /**
     * @param fingerprintParts the operation name and its normalized inputs; equal parts mean the same request
     */
    public StoredResponse execute(String client, String key, Supplier<StoredResponse> operation,
            String... fingerprintParts) {
        String hash = fingerprint(fingerprintParts);
        try {
            return transaction.execute(tx -> {
                keys.limitLockWait(settings.lockTimeout().toMillis());
                Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
                if (!keys.claim(client, key, hash, now, now.plus(settings.ttl()))) {
                    IdempotencyKeys.Recorded recorded = keys.find(client, key).orElseThrow();
                    if (!recorded.requestHash().equals(hash)) {
                        throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused",
                                "Idempotency-Key reused",
                                "This Idempotency-Key was already used with a different request.");
                    }
                    return recorded.response().asReplay();
                }
                StoredResponse response = operation.get();
                keys.complete(client, key, response);
                return response;
            });
        } catch (PessimisticLockingFailureException e) {
            throw new ApiException(HttpStatus.CONFLICT, "idempotency-key-in-progress", "Request in progress",
                    "A request with this Idempotency-Key is still being processed; retry later.");
        }
    }

    /** Checks the header: required, 1 to 255 visible ASCII characters. */
    public static String validKey(String key) {
        if (key == null || key.isEmpty()) {
            throw ApiException.invalid("The Idempotency-Key header is required.");
        }
        if (key.length() > 255 || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw ApiException.invalid("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
        }
        return key;
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
