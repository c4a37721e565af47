package dev.outbox.relay.outbox;

import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The runbook's dead-letter operations over {@link Outbox}: list (payload redacted) by event type, reason, failure
 * group and time window; the failure groups; inspect one; requeue one, a selection or all of them ({@code all=true},
 * so an empty selection is never a mistake), after a dry run if wanted ({@code dryRun=true}: how many and which set,
 * nothing changed); the audit of requeues. A requeue given the dry run's digest ({@code expect}) takes exactly that set
 * or nothing. A requeued row keeps its id; the polling relay, or in cdc mode the safety net after its grace period,
 * publishes it. The relay's operator chain puts every path of its port behind the admin token.
 */
@RestController
@RequestMapping("/admin/dead-letters")
final class DeadLetterAdmin {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterAdmin.class);
    private static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,63}");
    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");
    /** A reason or a cause as an operator may send it: printable, one line, bounded (last_error's own bound). */
    private static final Pattern TEXT =
            Pattern.compile("[^\\p{Cntrl}\\p{Cf}\\p{Co}\\p{Cs}\\p{Cn}\\p{Zl}\\p{Zp}]{1,300}");

    /**
     * A dry run's answer, or a requeue's.
     *
     * @param dryRun       true for a dry run, which changed nothing
     * @param deadLetters  how many the selection took (for a requeue: when it ran)
     * @param digest       which set: pass it as {@code expect} to requeue exactly this one
     * @param asOf         when the set was read
     * @param requeued     rows requeued (0 in a dry run, and when the set was not the expected one)
     * @param first        the set's first dead letters, for a dry run (at most 100, payload redacted)
     */
    record Answer(
            boolean dryRun, long deadLetters, String digest, Instant asOf, int requeued, List<DeadLetter> first) {}

    private final Outbox outbox;

    DeadLetterAdmin(Outbox outbox) {
        this.outbox = outbox;
    }

    @GetMapping
    List<DeadLetter> list(
            @RequestParam(required = false) String eventType,
            @RequestParam(required = false) String reason,
            @RequestParam(required = false) String cause,
            @RequestParam(required = false) Instant after,
            @RequestParam(required = false) Instant before,
            @RequestParam(defaultValue = "100") int limit) {
        return outbox.deadLetters(selection(eventType, reason, cause, after, before), false, bounded(limit));
    }

    @GetMapping("/groups")
    List<DeadLetter.Group> groups(@RequestParam(defaultValue = "100") int limit) {
        return outbox.deadLetterGroups(bounded(limit));
    }

    @GetMapping("/requeues")
    List<DeadLetter.Audit> requeues(@RequestParam(defaultValue = "100") int limit) {
        return outbox.requeues(bounded(limit));
    }

    @GetMapping("/{id}")
    DeadLetter inspect(@PathVariable UUID id, @RequestParam(defaultValue = "false") boolean includePayload) {
        return outbox.deadLetters(DeadLetter.Selection.one(id), includePayload, 1).stream()
                .findFirst()
                .orElseThrow(DeadLetterRefusal::notFound);
    }

    @PostMapping("/{id}/requeue")
    Answer requeueOne(@PathVariable UUID id, Principal principal) {
        Answer answer = requeue(DeadLetter.Selection.one(id), null, principal);
        if (answer.requeued() == 0) {
            throw DeadLetterRefusal.notFound();
        }
        return answer;
    }

    @PostMapping("/requeue")
    Answer requeueMatching(
            @RequestParam(required = false) String eventType,
            @RequestParam(required = false) String reason,
            @RequestParam(required = false) String cause,
            @RequestParam(required = false) Instant after,
            @RequestParam(required = false) Instant before,
            @RequestParam(defaultValue = "false") boolean all,
            @RequestParam(defaultValue = "false") boolean dryRun,
            @RequestParam(required = false) String expect,
            Principal principal) {
        DeadLetter.Selection selection = selection(eventType, reason, cause, after, before);
        if (selection.isEverything() != all) {
            throw DeadLetterRefusal.invalid(
                    all
                            ? "all=true requeues every dead letter: give it without a selection."
                            : "Give a selection (eventType, reason, cause, after, before) or all=true.");
        }
        if (expect != null && !DIGEST.matcher(expect).matches()) {
            throw DeadLetterRefusal.invalid("expect must be a dry run's digest.");
        }
        if (dryRun) {
            DeadLetter.Matched matched = outbox.matched(selection);
            return new Answer(
                    true,
                    matched.deadLetters(),
                    matched.digest(),
                    matched.asOf(),
                    0,
                    outbox.deadLetters(selection, false, 100));
        }
        Answer answer = requeue(selection, expect, principal);
        if (expect != null && answer.requeued() == 0 && !expect.equals(answer.digest())) {
            throw DeadLetterRefusal.setChanged(answer.deadLetters());
        }
        return answer;
    }

    /** Logged with the selection's values, each validated (a UUID, an event type, printable text, instants). */
    private Answer requeue(DeadLetter.Selection selection, String expect, Principal principal) {
        DeadLetter.Requeue requeue = outbox.requeue(selection, expect, principal.getName());
        log.info(
                "{} of {} dead letters ({}) requeued by {}",
                requeue.requeued(),
                requeue.matched().deadLetters(),
                selection,
                principal.getName());
        return new Answer(
                false,
                requeue.matched().deadLetters(),
                requeue.matched().digest(),
                requeue.matched().asOf(),
                requeue.requeued(),
                List.of());
    }

    private static DeadLetter.Selection selection(
            String eventType, String reason, String cause, Instant after, Instant before) {
        if (eventType != null && !EVENT_TYPE.matcher(eventType).matches()) {
            throw DeadLetterRefusal.invalid("eventType must be an event type name.");
        }
        if ((reason != null && !TEXT.matcher(reason).matches())
                || (cause != null && !TEXT.matcher(cause).matches())) {
            throw DeadLetterRefusal.invalid(
                    "reason and cause must be printable text on one line, up to 300 characters.");
        }
        if (after != null && before != null && !after.isBefore(before)) {
            throw DeadLetterRefusal.invalid("after must be before before.");
        }
        return new DeadLetter.Selection(null, eventType, reason, cause, after, before);
    }

    private static int bounded(int limit) {
        return Math.min(Math.max(limit, 1), 1000);
    }
}
