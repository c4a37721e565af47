package dev.outbox.accounting.ledger;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.OperatorRefusal;
import dev.outbox.accounting.events.EventParser;
import dev.outbox.accounting.events.PoisonMessageException;
import dev.outbox.contract.EventRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An operator's resolution of a version gap that will never fill: the missing versions are skipped (the payment's
 * position moves past them without a ledger entry), the parked events behind them are applied in order, and an
 * audit row says who, why and what, all in one transaction under the payment's lock. Never silent: the operator
 * names the exact gap the list showed, so a gap that changed meanwhile (filled, or grown) is refused; if a skipped
 * version arrives later, it is stale and ignored like any old version.
 */
@Service
final class GapResolver {

    private static final Logger log = LoggerFactory.getLogger(GapResolver.class);

    private final TransactionTemplate transaction;
    private final LedgerRepository ledger;
    private final LedgerService service;
    private final GapResolutions resolutions;
    private final EventParser parser;
    private final ParkedMonitor monitor;
    private final String consumer;
    private final Counter skipped;

    GapResolver(
            TransactionTemplate transaction,
            LedgerRepository ledger,
            LedgerService service,
            GapResolutions resolutions,
            EventParser parser,
            ParkedMonitor monitor,
            AccountingProperties properties,
            MeterRegistry meters) {
        this.transaction = transaction;
        this.ledger = ledger;
        this.service = service;
        this.resolutions = resolutions;
        this.parser = parser;
        this.monitor = monitor;
        this.consumer = properties.consumerName();
        this.skipped = Counter.builder("accounting_gap_versions_skipped")
                .description("missing versions an operator skipped")
                .register(meters);
    }

    /**
     * @param from     the first missing version, as the operator saw it
     * @param to       the last missing version, as the operator saw it
     * @param operator who asks (a name the operator gives: the admin token is shared)
     * @param principal the principal the request authenticated as
     */
    GapResolutions.Resolution skip(
            UUID paymentId, long from, long to, String operator, String principal, String reason) {
        GapResolutions.Resolution resolution;
        try {
            resolution = transaction.execute(tx -> {
                ledger.lock(consumer, List.of(paymentId));
                LedgerRepository.Position position =
                        ledger.positions(consumer, List.of(paymentId)).get(paymentId);
                EventRecord first = ledger.firstParked(consumer, paymentId)
                        .orElseThrow(() -> OperatorRefusal.notFound("No event of this payment is parked."));
                long gapFrom = position.version() + 1;
                long gapTo = first.envelope().aggregateVersion() - 1;
                if (gapTo < gapFrom) {
                    throw OperatorRefusal.conflict(
                            "no-gap",
                            "No gap",
                            "The payment's first parked event is the next version; nothing to skip.");
                }
                if (from != gapFrom || to != gapTo) {
                    throw OperatorRefusal.conflict(
                            "gap-changed",
                            "Gap changed",
                            "The payment's gap is versions " + gapFrom + " to " + gapTo + "; list it again.");
                }
                String currency = position.currency() != null
                        ? position.currency()
                        : parser.parse(first).currency();
                ledger.skipTo(consumer, paymentId, to, currency);
                int applied = service.applyParked(paymentId, to + 1);
                GapResolutions.Resolution r = new GapResolutions.Resolution(
                        paymentId, from, to, applied, operator, principal, reason, Instant.now());
                resolutions.record(consumer, r);
                return r;
            });
        } catch (PoisonMessageException e) {
            throw OperatorRefusal.conflict(
                    "parked-event-unappliable",
                    "Parked event cannot be applied",
                    "A parked event of this payment cannot be applied (" + e.getMessage() + "); nothing was changed.");
        }
        skipped.increment(to - from + 1);
        monitor.refresh();
        // operator and reason are validated as one printable line each
        log.warn(
                "version gap {}..{} of payment {} skipped by {} ({}): {}; {} parked events applied",
                from,
                to,
                paymentId,
                operator,
                principal,
                reason,
                resolution.applied());
        return resolution;
    }
}
