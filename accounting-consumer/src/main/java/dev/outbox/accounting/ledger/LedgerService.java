package dev.outbox.accounting.ledger;

import java.nio.charset.StandardCharsets;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.events.EventParser;
import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.accounting.inbox.Inbox;
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

    public enum Outcome { APPLIED, DUPLICATE, STALE, PARKED }

    private final Inbox inbox;
    private final LedgerRepository ledger;
    private final EventParser parser;
    private final String consumer;
    private final java.util.Map<Outcome, Counter> outcomes = new java.util.EnumMap<>(Outcome.class);

    LedgerService(Inbox inbox, LedgerRepository ledger, EventParser parser, AccountingProperties properties,
            MeterRegistry meters) {
        this.inbox = inbox;
        this.ledger = ledger;
        this.parser = parser;
        this.consumer = properties.consumerName();
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, Counter.builder("accounting_events").tag("outcome", outcome.name().toLowerCase())
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
        long last = ledger.lockAndReadVersion(consumer, event.paymentId());
        if (event.version() <= last) {
            log.debug("stale event {} (version {} <= {}) ignored", event.id(), event.version(), last);
            return count(Outcome.STALE);
        }
        if (event.version() > last + 1) {
            log.warn("version gap on payment {}: got {}, expected {}; event {} parked until the gap fills",
                    event.paymentId(), event.version(), last + 1, event.id());
            ledger.park(consumer, event);
            return count(Outcome.PARKED);
        }
        applyInOrder(event, traceId);
        long next = event.version() + 1;
        for (var parked = ledger.unpark(consumer, event.paymentId(), next); parked.isPresent();
                parked = ledger.unpark(consumer, event.paymentId(), ++next)) {
            LedgerRepository.Parked p = parked.get();
            PaymentEvent successor = parser.parse(event.paymentId().toString(),
                    p.payloadJson().getBytes(StandardCharsets.UTF_8), p.eventId().toString(), p.type(),
                    String.valueOf(p.schemaVersion()), String.valueOf(next), p.traceparent());
            log.info("gap filled on payment {}: applying parked version {}", event.paymentId(), next);
            applyInOrder(successor, traceId(p.traceparent()));
            count(Outcome.APPLIED);
        }
        return count(Outcome.APPLIED);
    }

    private void applyInOrder(PaymentEvent event, String traceId) {
        if (PaymentEvent.PAYMENT_REFUNDED.equals(event.type())) {
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
