package dev.outbox.payments.payment;

import java.time.Clock;
import java.util.Currency;
import javax.sql.DataSource;

import dev.outbox.payments.idempotency.BenchmarkIdempotency;
import dev.outbox.payments.outbox.OutboxWriter;
import dev.outbox.payments.web.BenchmarkTrace;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API's limit without HTTP: payments-api's own {@link PaymentService} (the idempotency claim, the payment, the
 * outbox row and the stored response in one transaction, with the API's statements) over a plain connection pool,
 * no servlet stack, no JSON request parsing, no Spring context. The benchmark compares the API over HTTP with this.
 */
public final class BenchmarkPayments {

    private final PaymentService service;
    private final PaymentRequests.NewPayment request =
            new PaymentRequests.NewPayment(Money.parse("3.00", Currency.getInstance("EUR")), null);

    public BenchmarkPayments(DataSource dataSource) {
        Clock clock = Clock.systemUTC();
        JdbcClient jdbc = JdbcClient.create(dataSource);
        this.service = new PaymentService(
                BenchmarkIdempotency.operations(dataSource, clock),
                new PaymentRepository(jdbc),
                new OutboxWriter(),
                BenchmarkTrace.withoutTracer(),
                JsonMapper.builder().build(),
                clock);
    }

    /** Creates one payment of client-a under {@code key}, as {@code POST /payments} does. */
    public void create(String key) {
        service.create("client-a", key, request);
    }
}
