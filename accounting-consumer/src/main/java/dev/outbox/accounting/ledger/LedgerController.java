package dev.outbox.accounting.ledger;

import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** {@code GET /ledger/payments/{id}}: a payment's ledger entries and balance, for checking from outside. */
@RestController
final class LedgerController {

    private final LedgerRepository ledger;
    private final String consumer;

    LedgerController(LedgerRepository ledger, AccountingProperties properties) {
        this.ledger = ledger;
        this.consumer = properties.consumerName();
    }

    /** Amounts as decimal strings, as everywhere money leaves this pipeline. */
    record LedgerView(UUID paymentId, String currency, String balance, long lastVersion, List<EntryView> entries) {}

    record EntryView(
            UUID eventId,
            long version,
            String type,
            String amount,
            String currency,
            String traceId,
            java.time.Instant createdAt) {

        static EntryView of(LedgerRepository.Entry e) {
            return new EntryView(
                    e.eventId(),
                    e.version(),
                    e.type(),
                    e.amount().toPlainString(),
                    e.currency(),
                    e.traceId(),
                    e.createdAt());
        }
    }

    @GetMapping("/ledger/payments/{id}")
    LedgerView payment(@PathVariable UUID id) {
        List<LedgerRepository.Entry> entries = ledger.entries(consumer, id);
        if (entries.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no ledger entries for this payment");
        }
        BigDecimal balance =
                entries.stream().map(LedgerRepository.Entry::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
        return new LedgerView(
                id,
                entries.get(0).currency(),
                balance.toPlainString(),
                entries.get(entries.size() - 1).version(),
                entries.stream().map(EntryView::of).toList());
    }
}
