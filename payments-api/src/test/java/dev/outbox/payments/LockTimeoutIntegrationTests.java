package dev.outbox.payments;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request whose Idempotency-Key another transaction holds waits at most the configured lock timeout, then answers
 * 409 and writes nothing. The holder is a real open transaction on the key's row; were the timeout not in force when
 * the claim waits, the request would wait for the holder, which never ends within the test, and the client's own
 * 30 s timeout would fail the test instead.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "payments.idempotency.lock-timeout=300ms")
class LockTimeoutIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcClient jdbc;

    @Test
    void aKeyHeldByAnotherTransactionIsAConflictAfterTheLockTimeoutAndNothingIsWritten() throws Exception {
        ApiClient api = new ApiClient("http://127.0.0.1:" + port);
        String key = UUID.randomUUID().toString();
        String body = "{\"amount\": \"10.00\", \"currency\": \"EUR\"}";
        long payments = count("payments");
        long events = count("outbox_messages");

        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement claim = holder.prepareStatement("""
                    INSERT INTO idempotency_keys (client_id, idempotency_key, request_hash, created_at, expires_at)
                    VALUES ('client-a', ?, 'held', now(), now() + interval '1 day')""")) {
                claim.setString(1, key);
                claim.executeUpdate();
            }

            HttpResponse<String> waited = api.createPayment(key, body);

            assertThat(waited.statusCode()).as(waited.body()).isEqualTo(409);
            assertThat(waited.body()).contains("idempotency-key-in-progress");
            assertThat(count("payments")).isEqualTo(payments);
            assertThat(count("outbox_messages")).isEqualTo(events);
            holder.rollback();
        }

        HttpResponse<String> created = api.createPayment(key, body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(count("payments")).isEqualTo(payments + 1);
        assertThat(count("outbox_messages")).isEqualTo(events + 1);
    }

    private long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }
}
