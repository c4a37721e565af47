package dev.outbox.accounting.ledger;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventTypes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The set-based path's plan, without a database: what it applies, what it leaves, when it hands over. */
class BatchPlanTests {

    final UUID a = UUID.randomUUID();
    final UUID b = UUID.randomUUID();

    @Test
    void appliesEachPaymentsNextVersionsInOrderAndSkipsWhatIsAlreadyReflected() {
        PaymentEvent a1 = event(a, 1, "EUR");
        PaymentEvent a2 = event(a, 2, "EUR");
        PaymentEvent b3 = event(b, 3, "EUR");
        PaymentEvent b2 = event(b, 2, "EUR");
        Map<UUID, LedgerRepository.Position> positions = Map.of(a, position(0, null), b, position(2, "EUR"));

        BatchPlan plan = BatchPlan.of(List.of(a1, b2, a2, b3, a1), positions).orElseThrow();

        assertThat(plan.toApply()).containsExactly(0, 2, 3);
        assertThat(plan.planned()).containsExactlyInAnyOrder(a1.id(), a2.id(), b3.id());
    }

    @Test
    void handsOverToTheGeneralPathOnAGapOrParkedEvents() {
        assertThat(BatchPlan.of(List.of(event(a, 3, "EUR")), Map.of(a, position(1, "EUR"))))
                .isEmpty();
        assertThat(BatchPlan.of(List.of(event(a, 2, "EUR")), Map.of(a, new LedgerRepository.Position(1, "EUR", true))))
                .isEmpty();
        assertThat(BatchPlan.of(List.of(event(a, 1, "EUR"), event(a, 3, "EUR")), Map.of(a, position(0, null))))
                .as("a gap within the batch")
                .isEmpty();
    }

    @Test
    void aRefundInAnotherCurrencyIsPoisonEvenWithinOneBatch() {
        assertThatThrownBy(() -> BatchPlan.of(
                        List.of(event(a, 1, "EUR"), event(a, 2, "USD")), new HashMap<>(Map.of(a, position(0, null)))))
                .isInstanceOf(PoisonMessageException.class);
    }

    @Test
    void doesNotChangeThePositionsItWasGiven() {
        Map<UUID, LedgerRepository.Position> positions = new HashMap<>(Map.of(a, position(0, null)));
        BatchPlan.of(List.of(event(a, 1, "EUR")), positions);
        assertThat(positions.get(a).version()).isZero();
    }

    private static LedgerRepository.Position position(long version, String currency) {
        return new LedgerRepository.Position(version, currency, false);
    }

    private static PaymentEvent event(UUID payment, long version, String currency) {
        String type = version == 1 ? EventTypes.PAYMENT_CREATED : EventTypes.PAYMENT_REFUNDED;
        return new PaymentEvent(
                new EventEnvelope(UUID.randomUUID(), type, 1, version, Instant.now(), null),
                payment,
                version == 1 ? BigDecimal.TEN : BigDecimal.ONE.negate(),
                currency,
                "{}");
    }
}
