package dev.outbox.accounting.deadletter;

import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

import dev.outbox.accounting.OperatorInput;
import dev.outbox.accounting.OperatorRefusal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The runbook's dead-letter operations over {@link DeadLetters}, for the consumer's {@code <topic>.DLT}: list
 * (payload redacted) by reason, failure group, event type and time window; the failure groups; inspect one; replay
 * one, a selection, or all of them ({@code all=true}, so an empty selection is never a mistake), after a dry run if
 * wanted ({@code dryRun=true}); a replay given the dry run's digest ({@code expect}) takes exactly that set or nothing;
 * the audit of replay requests. {@code /admin/**} is in the operator chain
 * ({@code admin.paths}): the admin token only.
 */
@RestController
@RequestMapping("/admin/dead-letters")
final class DeadLetterAdmin {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterAdmin.class);
    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    private final DeadLetters deadLetters;

    DeadLetterAdmin(DeadLetters deadLetters) {
        this.deadLetters = deadLetters;
    }

    /**
     * A dry run's answer: the set a replay of the selection would take now.
     *
     * @param digest pass it as {@code expect} to replay exactly this set
     * @param first  the set's first records, payload redacted (at most 100)
     */
    record DryRun(long deadLetters, String digest, Instant asOf, List<DeadLetter> first) {}

    @GetMapping
    List<DeadLetter> list(
            @RequestParam(required = false) String reason,
            @RequestParam(required = false) String cause,
            @RequestParam(required = false) String eventType,
            @RequestParam(required = false) Instant after,
            @RequestParam(required = false) Instant before,
            @RequestParam(defaultValue = "100") int limit) {
        return deadLetters.list(selection(reason, cause, eventType, after, before), bounded(limit));
    }

    @GetMapping("/groups")
    List<DeadLetter.Group> groups(@RequestParam(defaultValue = "100") int limit) {
        return deadLetters.groups(bounded(limit));
    }

    @GetMapping("/replays")
    List<DeadLetterReplays.Request> replays(@RequestParam(defaultValue = "100") int limit) {
        return deadLetters.requests(bounded(limit));
    }

    @GetMapping("/{partition}/{offset}")
    DeadLetter inspect(
            @PathVariable int partition,
            @PathVariable long offset,
            @RequestParam(defaultValue = "false") boolean includePayload) {
        return deadLetters
                .inspect(partition, offset, includePayload)
                .orElseThrow(() -> OperatorRefusal.notFound("There is no record at that position of the "
                        + "dead-letter topic (beyond its end, or deleted by its retention)."));
    }

    @PostMapping("/{partition}/{offset}/replay")
    DeadLetters.Replayed replayOne(@PathVariable int partition, @PathVariable long offset, Principal principal) {
        DeadLetters.Replayed result = deadLetters.replay(partition, offset, principal.getName());
        log.info(
                "dead letter {}@{} replayed by {}: {} published, {} replayed before",
                partition,
                offset,
                principal.getName(),
                result.replayed(),
                result.alreadyReplayed());
        return result;
    }

    @PostMapping("/replay")
    Object replayMatching(
            @RequestParam(required = false) String reason,
            @RequestParam(required = false) String cause,
            @RequestParam(required = false) String eventType,
            @RequestParam(required = false) Instant after,
            @RequestParam(required = false) Instant before,
            @RequestParam(defaultValue = "false") boolean all,
            @RequestParam(defaultValue = "false") boolean dryRun,
            @RequestParam(required = false) String expect,
            Principal principal) {
        DeadLetter.Selection selection = selection(reason, cause, eventType, after, before);
        if (selection.isEverything() != all) {
            throw OperatorRefusal.invalid(
                    all
                            ? "all=true replays every dead letter: give it without a selection."
                            : "Give a selection (reason, cause, eventType, after, before) or all=true.");
        }
        if (expect != null && !DIGEST.matcher(expect).matches()) {
            throw OperatorRefusal.invalid("expect must be a dry run's digest.");
        }
        if (dryRun) {
            DeadLetter.Matched matched = deadLetters.matched(selection);
            return new DryRun(
                    matched.deadLetters(), matched.digest(), matched.asOf(), deadLetters.list(selection, 100));
        }
        DeadLetters.Replayed result = deadLetters.replay(selection, expect, principal.getName());
        // the selection's values are validated: one printable line each
        log.info(
                "dead letters ({}) replayed by {}: {} published, {} replayed before",
                selection,
                principal.getName(),
                result.replayed(),
                result.alreadyReplayed());
        return result;
    }

    private static DeadLetter.Selection selection(
            String reason, String cause, String eventType, Instant after, Instant before) {
        if (after != null && before != null && !after.isBefore(before)) {
            throw OperatorRefusal.invalid("after must be before before.");
        }
        return new DeadLetter.Selection(
                OperatorInput.optionalText(reason, "reason", 100),
                OperatorInput.optionalText(cause, "cause", 300),
                OperatorInput.optionalEventType(eventType),
                after,
                before);
    }

    private static int bounded(int limit) {
        return Math.min(Math.max(limit, 1), 1000);
    }
}
