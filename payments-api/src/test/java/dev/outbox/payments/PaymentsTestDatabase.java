package dev.outbox.payments;

import dev.outbox.local.LocalCredentials;
import dev.outbox.testing.SharedInfra;
import org.springframework.test.context.DynamicPropertyRegistry;

/** A fresh payments database per test class on the JVM's shared embedded PostgreSQL. */
final class PaymentsTestDatabase {

    private PaymentsTestDatabase() {}

    static void register(DynamicPropertyRegistry registry) {
        String database = SharedInfra.freshDatabase("payments");
        registry.add("spring.datasource.url", () -> SharedInfra.postgres().jdbcUrl(database));
        registry.add("spring.datasource.username", () -> LocalCredentials.POSTGRES.user());
        registry.add("spring.datasource.password", () -> LocalCredentials.POSTGRES.password());
    }
}
