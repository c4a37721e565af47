package dev.outbox.payments;

import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A producer bug caught at write time: the API's JSON mapper set to write dates as numbers (one Spring property), so
 * every event's occurredAt breaks its schema. The request passes the HTTP validation; the outbox writer refuses the
 * payload inside the transaction: a 500 problem that carries none of the payload, and nothing committed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.jackson.datatype.datetime.write-dates-as-timestamps=true")
class EventSchemaIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Test
    void aPayloadThatBreaksItsSchemaIsAnInternalErrorWithNothingCommitted() {
        ApiClient api = new ApiClient("http://127.0.0.1:" + port);

        HttpResponse<String> refused =
                api.createPayment(UUID.randomUUID().toString(), "{\"amount\": \"73.19\", \"currency\": \"EUR\"}");

        assertThat(refused.statusCode()).isEqualTo(500);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body())
                .contains("urn:problem-type:payments:internal-error")
                .doesNotContain("73.19")
                .doesNotContain("client-a")
                .doesNotContain("occurredAt")
                .doesNotContain("schema");
        assertThat(count("payments")).isZero();
        assertThat(count("outbox_messages")).isZero();
        assertThat(count("idempotency_keys")).isZero();
    }

    private long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }
}
