package dev.outbox.accounting.ledger;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.events.EventParser;
import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.accounting.inbox.Inbox;
import dev.outbox.contract.EventTypes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Applies one payment event at most once, in version order. Must run inside the caller's transaction, which
 * also holds the inbox marker:
 * <ul>
 * <li>an event id seen before is a duplicate: nothing happens (an expected outcome, not an error);</li>
 * <li>a version at or below the last applied one is stale: nothing happens;</li>
 * <li>a version beyond the next one is parked, reported, and applied as soon as the missing one is;</li>
 * <li>the next version is applied, then any parked successors, in order.</li>
 * </ul>
 */
@Service
public final class LedgerService {

    private static final Logger log = LoggerFactory.getLogger(LedgerService.class);

    public enum Outcome {
        APPLIED,
        DUPLICATE,
        STALE,
        PARKED
    }

    private final Inbox inbox;
    private final LedgerRepository ledger;
    private final EventParser parser;
    private final String consumer;
    private final java.util.Map<Outcome, Counter> outcomes = new java.util.EnumMap<>(Outcome.class);

    LedgerService(
            Inbox inbox,
            LedgerRepository ledger,
            EventParser parser,
            AccountingProperties properties,
            MeterRegistry meters) {
        this.inbox = inbox;
        this.ledger = ledger;
        this.parser = parser;
        this.consumer = properties.consumerName();
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(
                    outcome,
                    Counter.builder("accounting_events")
                            .tag("outcome", outcome.name().toLowerCase())
                            .register(meters));
        }
    }

    public Outcome apply(PaymentEvent event, String traceId) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the inbox marker and the ledger effect need one transaction");
        }
        if (!inbox.claim(consumer, event.id())) {
            log.debug("duplicate event {} ignored", event.id());
            return count(Outcome.DUPLICATE);
        }
        ledger.lock(consumer, List.of(event.paymentId()));
        long last = ledger.positions(consumer, List.of(event.paymentId()))
                .get(event.paymentId())
                .version();
        if (event.version() <= last) {
            log.debug("stale event {} (version {} <= {}) ignored", event.id(), event.version(), last);
            return count(Outcome.STALE);
        }
        if (event.version() > last + 1) {
            log.warn(
                    "version gap on payment {}: got {}, expected {}; event {} parked until the gap fills",
                    event.paymentId(),
                    event.version(),
                    last + 1,
                    event.id());
            ledger.park(consumer, event);
            return count(Outcome.PARKED);
        }
        applyInOrder(event, traceId);
        applyParked(event.paymentId(), event.version() + 1);
        return count(Outcome.APPLIED);
    }

    /**
     * Applies the payment's parked events from version {@code next} on, in order, for as long as they follow each
     * other. Must run in a transaction holding the payment's lock, right after version {@code next - 1} became the
     * payment's position.
     *
     * @return how many parked events were applied
     */
    int applyParked(UUID paymentId, long next) {
        int applied = 0;
        for (var parked = ledger.unpark(consumer, paymentId, next);
                parked.isPresent();
                parked = ledger.unpark(consumer, paymentId, ++next)) {
            PaymentEvent successor = parser.parse(parked.get());
            log.info("gap filled on payment {}: applying parked version {}", paymentId, next);
            applyInOrder(successor, traceId(successor.envelope().traceparent()));
            count(Outcome.APPLIED);
            applied++;
        }
        return applied;
    }

    /**
     * Applies a whole batch with four statements instead of three per event, when every event in it is either
     * already reflected (duplicate or stale) or the next version of its payment, given the earlier events of the
     * batch. Returns {@code false}, having written nothing, when some event needs {@link #apply}'s general path (a
     * version gap, or a payment with parked events); the caller then applies the events one by one, in this
     * same transaction. Outcomes are the same as {@link #apply} would give, event by event.
     *
     * @throws PoisonMessageException for a refund in another currency than its payment's (the caller's per-record
     *         replay then finds the culprit)
     */
    public boolean applyBatch(List<PaymentEvent> events, List<String> traceIds) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the inbox markers and the ledger effects need one transaction");
        }
        Set<UUID> paymentIds = new LinkedHashSet<>();
        events.forEach(e -> paymentIds.add(e.paymentId()));
        ledger.lock(consumer, paymentIds);
        Optional<BatchPlan> plan = BatchPlan.of(events, ledger.positions(consumer, paymentIds));
        if (plan.isEmpty()) {
            return false;
        }
        Set<UUID> planned = plan.get().planned();
        List<PaymentEvent> toApply = new ArrayList<>(planned.size());
        List<String> toApplyTraces = new ArrayList<>(planned.size());
        for (int i : plan.get().toApply()) {
            toApply.add(events.get(i));
            toApplyTraces.add(traceIds.get(i));
        }
        Set<UUID> claimed = inbox.claimAll(
                consumer, events.stream().map(PaymentEvent::id).distinct().toList());
        if (!claimed.containsAll(planned)) {
            // an event this batch means to apply was taken before: only a concurrent consumer can cause that
            throw new IllegalStateException("inbox and positions disagree; the batch is replayed event by event");
        }
        if (!toApply.isEmpty()) {
            ledger.applyAll(consumer, toApply, toApplyTraces);
        }
        Set<UUID> counted = new HashSet<>();
        for (PaymentEvent e : events) {
            count(
                    !claimed.contains(e.id()) || !counted.add(e.id())
                            ? Outcome.DUPLICATE
                            : planned.contains(e.id()) ? Outcome.APPLIED : Outcome.STALE);
        }
        return true;
    }

    private void applyInOrder(PaymentEvent event, String traceId) {
        if (EventTypes.PAYMENT_REFUNDED.equals(event.type())) {
            String currency = ledger.currency(consumer, event.paymentId()).orElseThrow();
            if (!currency.equals(event.currency())) {
                throw new PoisonMessageException("refund currency differs from the payment's");
            }
        }
        ledger.apply(consumer, event, traceId);
    }

    private static String traceId(String traceparent) {
        return traceparent != null && traceparent.length() >= 35 ? traceparent.substring(3, 35) : null;
    }

    private Outcome count(Outcome outcome) {
        outcomes.get(outcome).increment();
        return outcome;
    }
}
