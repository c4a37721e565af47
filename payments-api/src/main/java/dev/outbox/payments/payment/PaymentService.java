package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Currency;
import java.util.List;
import java.util.UUID;

import dev.outbox.contract.EventTypes;
import dev.outbox.contract.PaymentPayloads.PaymentCreated;
import dev.outbox.contract.PaymentPayloads.PaymentRefunded;
import dev.outbox.contract.TimeOrderedIds;
import dev.outbox.payments.idempotency.IdempotentOperations;
import dev.outbox.payments.idempotency.Outcome;
import dev.outbox.payments.idempotency.StoredResponse;
import dev.outbox.payments.jdbc.Write;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.payments.outbox.OutboxWriter;
import dev.outbox.payments.payment.PaymentRequests.NewPayment;
import dev.outbox.payments.payment.PaymentViews.PaymentView;
import dev.outbox.payments.payment.PaymentViews.RefundView;
import dev.outbox.payments.web.TraceContext;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payment commands. Each one writes its change, its outbox event and its idempotency record in the single
 * transaction that {@link IdempotentOperations} opens; ids are generated once, before that transaction.
 */
@Service
final class PaymentService {

    private final IdempotentOperations idempotent;
    private final PaymentRepository payments;
    private final OutboxWriter outbox;
    private final TraceContext trace;
    private final JsonMapper json;
    private final Clock clock;

    PaymentService(
            IdempotentOperations idempotent,
            PaymentRepository payments,
            OutboxWriter outbox,
            TraceContext trace,
            JsonMapper json,
            Clock clock) {
        this.idempotent = idempotent;
        this.payments = payments;
        this.outbox = outbox;
        this.trace = trace;
        this.json = json;
        this.clock = clock;
    }

    StoredResponse create(String clientId, String key, NewPayment request) {
        UUID paymentId = TimeOrderedIds.next();
        UUID eventId = TimeOrderedIds.next();
        String traceparent = trace.traceparent();
        Money money = request.money();
        return idempotent.execute(
                clientId,
                key,
                () -> {
                    Instant now = now();
                    Write payment = payments.insert(paymentId, clientId, money, request.description(), now);
                    Write event = outbox.insert(new OutboxEvent(
                            eventId,
                            EventTypes.PAYMENT,
                            paymentId,
                            1,
                            EventTypes.PAYMENT_CREATED,
                            EventTypes.SCHEMA_VERSION,
                            json.writeValueAsString(
                                    new PaymentCreated(paymentId, clientId, money.plain(), money.code(), now)),
                            traceparent,
                            now));
                    Payment created = new Payment(
                            paymentId,
                            clientId,
                            money.amount(),
                            money.code(),
                            request.description(),
                            BigDecimal.ZERO,
                            Payment.CREATED,
                            1,
                            now,
                            now);
                    return new Outcome(
                            StoredResponse.created(json.writeValueAsBytes(PaymentView.of(created)), paymentId),
                            List.of(payment, event));
                },
                "POST /payments",
                money.plain(),
                money.code(),
                request.description());
    }

    Payment find(UUID paymentId, String clientId) {
        return payments.find(paymentId, clientId)
                .orElseThrow(() -> new PaymentNotFound("No payment " + paymentId + "."));
    }

    StoredResponse refund(String clientId, String key, UUID paymentId, String requested) {
        UUID refundId = TimeOrderedIds.next();
        UUID eventId = TimeOrderedIds.next();
        String traceparent = trace.traceparent();
        Payment payment = find(paymentId, clientId);
        Money money = Money.parse(requested, Currency.getInstance(payment.currency()));
        return idempotent.execute(
                clientId,
                key,
                () -> {
                    Instant now = now();
                    Payment refunded = payments.refund(paymentId, clientId, money.amount(), now)
                            .orElseThrow(RefundExceedsPayment::new);
                    Write refund = payments.refundRow(refundId, paymentId, money.amount(), now);
                    String refundedTotal = PaymentViews.scaled(refunded.refundedAmount(), refunded.currency());
                    Write event = outbox.insert(new OutboxEvent(
                            eventId,
                            EventTypes.PAYMENT,
                            paymentId,
                            refunded.version(),
                            EventTypes.PAYMENT_REFUNDED,
                            EventTypes.SCHEMA_VERSION,
                            json.writeValueAsString(new PaymentRefunded(
                                    paymentId, refundId, money.plain(), money.code(), refundedTotal, now)),
                            traceparent,
                            now));
                    RefundView view = new RefundView(
                            refundId, paymentId, money.plain(), money.code(), refunded.status(), refunded.version());
                    return new Outcome(
                            StoredResponse.created(json.writeValueAsBytes(view), refundId), List.of(refund, event));
                },
                "POST /payments/" + paymentId + "/refunds",
                money.plain(),
                money.code());
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
