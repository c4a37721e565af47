package dev.outbox.pause;

import java.nio.file.Files;
import java.nio.file.Path;

import dev.outbox.accounting.AccountingApplication;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.BatchInterceptor;

/**
 * accounting-consumer as deployed, plus one test bean (outside the application's scanned packages), for a child JVM
 * that a test SIGKILLs: after a batch's database transaction committed, and before the container commits its
 * offsets, it writes the file named by {@code PAUSE_MARKER} and waits for the kill.
 */
public final class PausingConsumer {

    private PausingConsumer() {}

    public static void main(String[] args) {
        AccountingApplication.builder().sources(PauseAfterCommit.class).run(args);
    }

    @Configuration(proxyBeanMethods = false)
    static class PauseAfterCommit {

        /** spring-kafka calls success() after the listener returned (its transaction committed), before the commit. */
        @Bean
        BatchInterceptor<Object, Object> pauseAfterCommit() {
            Path marker = Path.of(System.getenv("PAUSE_MARKER"));
            return new BatchInterceptor<>() {
                @Override
                public ConsumerRecords<Object, Object> intercept(
                        ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
                    return records;
                }

                @Override
                public void success(ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
                    try {
                        Files.writeString(marker, "committed, offsets not\n");
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
        }
    }
}
