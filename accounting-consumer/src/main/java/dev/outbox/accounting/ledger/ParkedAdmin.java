package dev.outbox.accounting.ledger;

import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.OperatorInput;
import dev.outbox.accounting.OperatorRefusal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Events parked behind a version gap, per payment, with their age and the missing versions; skipping a gap that
 * will never fill ({@link GapResolver}) and the audit of those skips. {@code /admin/**} is in the operator chain
 * ({@code admin.paths}): the admin token only.
 */
@RestController
final class ParkedAdmin {

    private final LedgerRepository ledger;
    private final GapResolver resolver;
    private final GapResolutions resolutions;
    private final String consumer;

    ParkedAdmin(
            LedgerRepository ledger,
            GapResolver resolver,
            GapResolutions resolutions,
            AccountingProperties properties) {
        this.ledger = ledger;
        this.resolver = resolver;
        this.resolutions = resolutions;
        this.consumer = properties.consumerName();
    }

    /**
     * @param lastAppliedVersion 0 when no version of the payment was applied
     * @param missingFrom        the first missing version: what a skip names, with {@code missingTo}
     * @param oldestAgeSeconds   how long its oldest parked event has waited
     */
    record ParkedPayment(
            UUID paymentId,
            long lastAppliedVersion,
            long missingFrom,
            long missingTo,
            long oldestAgeSeconds,
            List<ParkedEvent> events) {}

    record ParkedEvent(long version, UUID eventId, String eventType, Instant parkedAt, long ageSeconds) {}

    /** @param fromVersion the first missing version to skip; {@code toVersion} the last (the gap as listed) */
    record SkipRequest(Long fromVersion, Long toVersion, String operator, String reason) {}

    @GetMapping("/admin/parked")
    List<ParkedPayment> list(
            @RequestParam(required = false) UUID paymentId, @RequestParam(defaultValue = "1000") int limit) {
        Map<UUID, List<LedgerRepository.Parked>> byPayment = new LinkedHashMap<>();
        for (LedgerRepository.Parked p : ledger.parked(consumer, paymentId, Math.min(Math.max(limit, 1), 10_000))) {
            byPayment.computeIfAbsent(p.paymentId(), id -> new ArrayList<>()).add(p);
        }
        List<ParkedPayment> payments = new ArrayList<>();
        byPayment.forEach((id, events) -> {
            LedgerRepository.Parked first = events.get(0);
            payments.add(new ParkedPayment(
                    id,
                    first.lastVersion(),
                    first.lastVersion() + 1,
                    first.version() - 1,
                    events.stream()
                            .mapToLong(LedgerRepository.Parked::ageSeconds)
                            .max()
                            .orElse(0),
                    events.stream()
                            .map(e -> new ParkedEvent(e.version(), e.eventId(), e.type(), e.parkedAt(), e.ageSeconds()))
                            .toList()));
        });
        return payments;
    }

    @PostMapping("/admin/parked/{paymentId}/skip")
    GapResolutions.Resolution skip(
            @PathVariable UUID paymentId, @RequestBody SkipRequest request, Principal principal) {
        if (request.fromVersion() == null || request.toVersion() == null) {
            throw OperatorRefusal.invalid("fromVersion and toVersion are required: the gap as listed.");
        }
        if (request.fromVersion() < 1 || request.toVersion() < request.fromVersion()) {
            throw OperatorRefusal.invalid("fromVersion must be at least 1 and toVersion at least fromVersion.");
        }
        return resolver.skip(
                paymentId,
                request.fromVersion(),
                request.toVersion(),
                OperatorInput.text(request.operator(), "operator", 100),
                principal.getName(),
                OperatorInput.text(request.reason(), "reason", 500));
    }

    @GetMapping("/admin/gap-resolutions")
    List<GapResolutions.Resolution> resolutions(
            @RequestParam(required = false) UUID paymentId, @RequestParam(defaultValue = "100") int limit) {
        return resolutions.list(consumer, paymentId, Math.min(Math.max(limit, 1), 1000));
    }
}
