package dev.outbox.payments;

import java.time.Clock;
import javax.sql.DataSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The payments HTTP API: payment, outbox event and idempotency record commit in one PostgreSQL transaction. */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class PaymentsApplication {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Translates by PostgreSQL's error codes (Spring's own table for it), which the auto-configured JdbcTemplate
     * picks up. The default translator reads only JDBC exception subclasses, which the PostgreSQL driver does not
     * throw: a lock timeout (55P03) would be an uncategorized error instead of a
     * {@link org.springframework.dao.CannotAcquireLockException}, and the idempotency key's 409 would be a 500.
     */
    @Bean
    SQLExceptionTranslator sqlExceptionTranslator(DataSource dataSource) {
        return new SQLErrorCodeSQLExceptionTranslator(dataSource);
    }

    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}
