package dev.outbox.accounting.ledger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.contract.EventTypes;

/**
 * Which events of a batch the set-based path applies, decided from each payment's position as the batch advances
 * it: an event that is the next version of its payment is applied (each event id once), one at or below the
 * position is already reflected. A version gap, or a payment with parked events, is beyond this plan: the batch
 * then takes the general path, event by event. Pure logic: the positions come from the database, read after the
 * payments' locks.
 *
 * @param toApply indexes into the batch of the events to apply, in order
 * @param planned the ids of the events to apply
 */
record BatchPlan(List<Integer> toApply, Set<UUID> planned) {

    /**
     * @return empty when the batch needs the general path
     * @throws PoisonMessageException for a refund in another currency than its payment's
     */
    static Optional<BatchPlan> of(List<PaymentEvent> events, Map<UUID, LedgerRepository.Position> positions) {
        Map<UUID, LedgerRepository.Position> advancing = new HashMap<>(positions);
        List<Integer> toApply = new ArrayList<>(events.size());
        Set<UUID> planned = new HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            PaymentEvent e = events.get(i);
            LedgerRepository.Position position = advancing.get(e.paymentId());
            if (position.parked() || e.version() > position.version() + 1) {
                return Optional.empty();
            }
            if (e.version() == position.version() + 1 && planned.add(e.id())) {
                if (EventTypes.PAYMENT_REFUNDED.equals(e.type())
                        && !e.currency().equals(position.currency())) {
                    throw new PoisonMessageException("refund currency differs from the payment's");
                }
                advancing.put(
                        e.paymentId(),
                        new LedgerRepository.Position(
                                e.version(), position.currency() == null ? e.currency() : position.currency(), false));
                toApply.add(i);
            }
        }
        return Optional.of(new BatchPlan(toApply, planned));
    }
}
