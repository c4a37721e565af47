package dev.outbox.security;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorTextTests {

    @Test
    void removesCredentialsConnectionStringsAndPayloadsAndBoundsTheLength() {
        Exception e = new IllegalStateException("connect to jdbc:postgresql://db:5432/payments?user=relay failed; "
                + "password=s3cr3t-Passw0rd token: abc.def.ghi Authorization: Bearer sk_live_123 while sending "
                + "{\"cardNumber\":\"4111111111111111\",\"amount\":\"10.00\"}");

        String text = ErrorText.sanitize(e);

        assertThat(text)
                .startsWith("IllegalStateException: ")
                .doesNotContain("s3cr3t", "abc.def.ghi", "sk_live_123", "4111111111111111", "jdbc:postgresql://db")
                .contains("<redacted>", "<url>");
        assertThat(ErrorText.sanitize(new RuntimeException("x".repeat(5000)))).hasSizeLessThanOrEqualTo(300);
    }
}
