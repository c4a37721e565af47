package dev.outbox.accounting;

import java.nio.charset.StandardCharsets;

import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.contract.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * spring-kafka's error handling, configured once: poison messages go straight to {@code <topic>.DLT} with a
 * sanitized reason; unclassified failures are retried a bounded number of times, then dead-lettered; a database
 * that is down or unreachable is retried with backoff for as long as it takes, so no message is ever skipped.
 */
@Configuration(proxyBeanMethods = false)
class KafkaErrorHandling {

    private static final Logger log = LoggerFactory.getLogger(KafkaErrorHandling.class);

    @Bean
    DefaultErrorHandler errorHandler(
            KafkaOperations<Object, Object> template, AccountingProperties properties, MeterRegistry meters) {
        Counter deadLettered = Counter.builder("accounting_dead_letters").register(meters);
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(
                template, (record, e) -> new TopicPartition(Topics.deadLetters(record.topic()), -1));
        recoverer.excludeHeader(DeadLetterPublishingRecoverer.HeaderNames.HeadersToAdd.EX_STACKTRACE);
        recoverer.setHeadersFunction((record, e) -> {
            RecordHeaders headers = new RecordHeaders();
            headers.add(DeadLetterHeaders.REASON, reason(e).getBytes(StandardCharsets.UTF_8));
            return headers;
        });
        DefaultErrorHandler handler = new DefaultErrorHandler(
                (record, e) -> {
                    log.error(
                            "dead-lettering record {}-{}@{}: {}",
                            record.topic(),
                            record.partition(),
                            record.offset(),
                            reason(e));
                    recoverer.accept(record, e);
                    deadLettered.increment();
                },
                new FixedBackOff(500, properties.maxAttempts() - 1));
        handler.addNotRetryableExceptions(PoisonMessageException.class);
        // the recoverer and the retry listener log each failure once, in one line; no stack trace per seek
        handler.setLogLevel(KafkaException.Level.DEBUG);
        handler.setRetryListeners((record, e, attempt) -> log.warn(
                "attempt {} at {}-{}@{} failed: {}",
                attempt,
                record.topic(),
                record.partition(),
                record.offset(),
                reason(e)));
        ExponentialBackOff untilTheDatabaseIsBack = new ExponentialBackOff(500, 2.0);
        untilTheDatabaseIsBack.setMaxInterval(10_000);
        handler.setBackOffFunction((record, e) -> isTransient(e) ? untilTheDatabaseIsBack : null);
        return handler;
    }

    /**
     * A failure of the database, not of the message: anything the JDBC or transaction layer raised (connection
     * lost or refused, server restarting, pool exhausted, conflicts), except a constraint violation, which a
     * message can cause. Retried for as long as it takes, so a database outage never skips a message.
     */
    static boolean isTransient(Throwable e) {
        boolean databaseLayer = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PoisonMessageException
                    || t instanceof org.springframework.dao.DataIntegrityViolationException) {
                return false;
            }
            databaseLayer |= t instanceof org.springframework.dao.DataAccessException
                    || t instanceof org.springframework.transaction.TransactionException
                    || t instanceof java.sql.SQLException
                    || t instanceof java.net.ConnectException;
        }
        return databaseLayer;
    }

    /** The innermost cause's type and, for poison, its message; never a payload or a stack trace. */
    static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root instanceof PoisonMessageException
                ? "poison: " + root.getMessage()
                : root.getClass().getSimpleName();
        return text.length() > 300 ? text.substring(0, 300) : text;
    }
}
