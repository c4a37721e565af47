package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import dev.outbox.payments.jdbc.Write;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** The payments and refunds tables. Its writes are sent by the caller, inside its transaction. */
@Component
final class PaymentRepository {

    private static final String INSERT = """
            INSERT INTO payments (id, client_id, amount, currency, description, refunded_amount, status, version,
                                  created_at, updated_at)
            VALUES (:id, :clientId, :amount, :currency, :description, 0, :status, 1, :now, :now)
            """;

    private static final String FIND = """
            SELECT id, client_id, amount, currency, description, refunded_amount, status, version, created_at,
                   updated_at
              FROM payments
             WHERE id = :id AND client_id = :clientId
            """;

    /** Refunds atomically: the row lock serializes concurrent refunds, so versions are consecutive. */
    private static final String REFUND = """
            UPDATE payments
               SET refunded_amount = refunded_amount + :amount,
                   status = CASE WHEN refunded_amount + :amount = amount THEN 'REFUNDED'
                                 ELSE 'PARTIALLY_REFUNDED' END,
                   version = version + 1,
                   updated_at = :now
             WHERE id = :id AND client_id = :clientId AND refunded_amount + :amount <= amount
            RETURNING id, client_id, amount, currency, description, refunded_amount, status, version, created_at,
                      updated_at
            """;

    private static final String INSERT_REFUND = """
            INSERT INTO refunds (id, payment_id, amount, created_at) VALUES (:id, :paymentId, :amount, :now)
            """;

    private final JdbcClient jdbc;

    PaymentRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The payment's insert, sent with the transaction's other writes. */
    Write insert(UUID id, String clientId, Money money, String description, Instant now) {
        return new Write(
                INSERT,
                new MapSqlParameterSource()
                        .addValue("id", id)
                        .addValue("clientId", clientId)
                        .addValue("amount", money.amount())
                        .addValue("currency", money.code())
                        .addValue("description", description)
                        .addValue("status", Payment.CREATED)
                        .addValue("now", Timestamp.from(now)));
    }

    Optional<Payment> find(UUID id, String clientId) {
        return jdbc.sql(FIND)
                .param("id", id)
                .param("clientId", clientId)
                .query(PaymentRepository::map)
                .optional();
    }

    /**
     * Adds the refund to the payment now (the row lock serializes concurrent refunds) and answers the payment as it
     * is after it; empty when the payment is not this client's or the refund would exceed what is left.
     */
    Optional<Payment> refund(UUID paymentId, String clientId, BigDecimal amount, Instant now) {
        return jdbc.sql(REFUND)
                .param("amount", amount)
                .param("now", Timestamp.from(now))
                .param("id", paymentId)
                .param("clientId", clientId)
                .query(PaymentRepository::map)
                .optional();
    }

    /** The refund's own row, sent with the transaction's other writes after {@link #refund} succeeded. */
    Write refundRow(UUID refundId, UUID paymentId, BigDecimal amount, Instant now) {
        return new Write(
                INSERT_REFUND,
                new MapSqlParameterSource()
                        .addValue("id", refundId)
                        .addValue("paymentId", paymentId)
                        .addValue("amount", amount)
                        .addValue("now", Timestamp.from(now)));
    }

    private static Payment map(ResultSet rs, int row) throws SQLException {
        return new Payment(
                rs.getObject("id", UUID.class),
                rs.getString("client_id"),
                rs.getBigDecimal("amount"),
                rs.getString("currency"),
                rs.getString("description"),
                rs.getBigDecimal("refunded_amount"),
                rs.getString("status"),
                rs.getLong("version"),
                rs.getTimestamp("created_at").toInstant(),
                rs.getTimestamp("updated_at").toInstant());
    }
}
