package dev.outbox.payments.idempotency;

import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;

import dev.outbox.payments.jdbc.Writes;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** payments-api's idempotent transaction, built without Spring's context for the benchmark's JDBC limit. */
public final class BenchmarkIdempotency {

    private BenchmarkIdempotency() {}

    public static IdempotentOperations operations(DataSource dataSource, Clock clock) {
        return new IdempotentOperations(
                new IdempotencyKeys(JdbcClient.create(dataSource)),
                new Writes(JdbcClient.create(dataSource)),
                new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
                new IdempotencyProperties(Duration.ofHours(24), Duration.ofSeconds(5), Duration.ofMinutes(5), 500),
                clock);
    }
}
