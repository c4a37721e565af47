package dev.outbox.payments.web;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Idempotency-Key header's rules, without a server: exactly one, 1 to 255 visible ASCII characters. */
class IdempotencyKeyHeaderTests {

    @ParameterizedTest
    @MethodSource("valid")
    void takesOneKeyOfVisibleAsciiUpToTheLimit(String key) {
        assertThat(IdempotencyKeyHeader.of(request(key))).isEqualTo(key);
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void refusesAnyOtherSpelling(String key) {
        assertRefused(request(key), "The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
    }

    static List<String> valid() {
        return List.of("k", "!", "~", "order-42/retry:1", "x".repeat(255));
    }

    static List<String> invalid() {
        return List.of("", "with space", "tab\tkey", "del\u007f", "caf\u00e9", "x".repeat(256));
    }

    @Test
    void refusesNoHeaderAndTwoHeadersRatherThanJoiningThem() {
        assertRefused(request(), "The Idempotency-Key header is required.");
        assertRefused(request("a", "b"), "Send exactly one Idempotency-Key header.");
        assertRefused(request("a", "a"), "Send exactly one Idempotency-Key header.");
    }

    private static void assertRefused(MockHttpServletRequest request, String detail) {
        assertThatThrownBy(() -> IdempotencyKeyHeader.of(request))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.BAD_REQUEST))
                .hasMessage(detail);
    }

    private static MockHttpServletRequest request(String... keys) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
        for (String key : keys) {
            request.addHeader(IdempotencyKeyHeader.NAME, key);
        }
        return request;
    }
}
