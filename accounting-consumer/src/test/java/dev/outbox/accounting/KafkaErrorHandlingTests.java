package dev.outbox.accounting;

import java.net.ConnectException;
import java.sql.SQLException;

import dev.outbox.accounting.events.PoisonMessageException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Which failures are the database's (retried for as long as it takes) and what a dead letter says of its cause. */
class KafkaErrorHandlingTests {

    @Test
    void aDatabaseFailureWrappedOnceIsTransient() {
        assertThat(KafkaErrorHandling.isTransient(wrapped(new CannotCreateTransactionException("down"))))
                .isTrue();
        assertThat(KafkaErrorHandling.isTransient(wrapped(new DataAccessResourceFailureException("cut"))))
                .isTrue();
        assertThat(KafkaErrorHandling.isTransient(wrapped(new CannotAcquireLockException("lock"))))
                .isTrue();
        assertThat(KafkaErrorHandling.isTransient(new RuntimeException(new SQLException("08006"))))
                .isTrue();
        assertThat(KafkaErrorHandling.isTransient(new RuntimeException(new ConnectException("refused"))))
                .isTrue();
    }

    @Test
    void aMessageCanCauseNeitherPoisonNorAConstraintViolationToRetryForever() {
        assertThat(KafkaErrorHandling.isTransient(wrapped(new PoisonMessageException("bad"))))
                .isFalse();
        assertThat(KafkaErrorHandling.isTransient(
                        wrapped(new DataIntegrityViolationException("dup", new SQLException("23505")))))
                .isFalse();
        assertThat(KafkaErrorHandling.isTransient(wrapped(new IllegalStateException("bug"))))
                .isFalse();
    }

    @Test
    void theDeadLetterReasonNamesTheCauseNeverThePayload() {
        assertThat(KafkaErrorHandling.reason(wrapped(new PoisonMessageException("amount is not a decimal number"))))
                .isEqualTo("poison: amount is not a decimal number");
        assertThat(KafkaErrorHandling.reason(wrapped(new IllegalStateException("{\"card\":\"4111111111111111\"}"))))
                .isEqualTo("IllegalStateException");
        assertThat(KafkaErrorHandling.reason(new PoisonMessageException("x".repeat(1000))))
                .hasSize(300);
    }

    private static RuntimeException wrapped(Exception cause) {
        return new ListenerExecutionFailedException("listener failed", cause);
    }
}
