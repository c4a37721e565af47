package dev.outbox.payments.outbox;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Benchmark only: payments-api without its outbox write, to price the outbox as a ratio. Never in a service. */
@TestConfiguration(proxyBeanMethods = false)
public class NoOutboxConfiguration {

    @Bean
    @Primary
    OutboxWriter noOutbox(JdbcClient jdbc) {
        return new OutboxWriter(jdbc) {
            @Override
            public void append(OutboxEvent event) {
                // the business rows and the idempotency record only
            }
        };
    }
}
