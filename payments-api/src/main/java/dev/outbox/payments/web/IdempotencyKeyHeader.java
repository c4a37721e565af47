package dev.outbox.payments.web;

import java.util.Collections;
import java.util.List;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The {@code Idempotency-Key} header: exactly one, of 1 to 255 visible ASCII characters. Two headers are refused
 * rather than joined, so a proxy that adds or repeats one can never turn two requests into one key.
 */
public final class IdempotencyKeyHeader {

    public static final String NAME = "Idempotency-Key";

    private IdempotencyKeyHeader() {}

    public static String of(HttpServletRequest request) {
        List<String> values = Collections.list(request.getHeaders(NAME));
        if (values.isEmpty()) {
            throw ApiException.invalid("The Idempotency-Key header is required.");
        }
        if (values.size() > 1) {
            throw ApiException.invalid("Send exactly one Idempotency-Key header.");
        }
        String key = values.get(0);
        if (key.isEmpty() || key.length() > 255 || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw ApiException.invalid("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
        }
        return key;
    }
}
