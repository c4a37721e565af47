package dev.outbox.security;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FailureCauseTests {

    @Test
    void uuidsAndNumbersBecomePlaceholdersTheRestStays() {
        assertThat(FailureCause.of("RecordTooLargeException: The message is 1048677 bytes, larger than 1048576."))
                .isEqualTo("RecordTooLargeException: The message is <n> bytes, larger than <n>.");
        assertThat(FailureCause.of("InvalidTopicException: event 01A24205-d4ba-73ee-934d-b9c83dead5a3 at 2"))
                .isEqualTo("InvalidTopicException: event <uuid> at <n>");
        assertThat(FailureCause.of("poison: breaks schema PaymentCreated v1: /amount: pattern"))
                .isEqualTo("poison: breaks schema PaymentCreated v<n>: /amount: pattern");
        assertThat(FailureCause.of(null)).isEmpty();
    }

    @Test
    void theCauseClassIsWhatComesBeforeTheFirstColon() {
        assertThat(FailureCause.causeClass("poison: payload is not valid JSON")).isEqualTo("poison");
        assertThat(FailureCause.causeClass("PSQLException: ERROR: refused")).isEqualTo("PSQLException");
        assertThat(FailureCause.causeClass("TimeoutException")).isEqualTo("TimeoutException");
    }
}
