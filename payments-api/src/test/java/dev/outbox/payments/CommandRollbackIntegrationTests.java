package dev.outbox.payments;

import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command that fails rolls back as a whole: the command fails after the payment row is written; PostgreSQL rolls back the payment, the
 * outbox event and the idempotency record together. The failure is real: a trigger on outbox_messages raises.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CommandRollbackIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @BeforeEach
    void failEveryOutboxInsert() {
        jdbc.sql("""
                CREATE FUNCTION fail_outbox_insert() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  RAISE EXCEPTION 'injected failure after the payment insert';
                END $$""").update();
        jdbc.sql("""
                CREATE TRIGGER fail_outbox_insert BEFORE INSERT ON outbox_messages
                FOR EACH ROW EXECUTE FUNCTION fail_outbox_insert()""").update();
    }

    @AfterEach
    void removeFailure() {
        jdbc.sql("DROP TRIGGER IF EXISTS fail_outbox_insert ON outbox_messages").update();
        jdbc.sql("DROP FUNCTION IF EXISTS fail_outbox_insert()").update();
    }

    @Test
    void failureAfterThePaymentInsertLeavesNoPaymentNoEventAndNoKey() {
        ApiClient api = new ApiClient("http://127.0.0.1:" + port);
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\": \"10.00\", \"currency\": \"EUR\"}";

        HttpResponse<String> failed = api.createPayment(key, body);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body())
                .contains("internal-error")
                .doesNotContain("injected")
                .doesNotContain("INSERT");
        assertThat(count("payments")).isZero();
        assertThat(count("outbox_messages")).isZero();
        assertThat(count("idempotency_keys")).isZero();

        removeFailure();
        HttpResponse<String> retried = api.createPayment(key, body);

        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(count("payments")).isEqualTo(1);
        assertThat(count("outbox_messages")).isEqualTo(1);
    }

    private long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }
}
