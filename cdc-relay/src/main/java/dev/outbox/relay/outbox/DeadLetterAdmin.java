package dev.outbox.relay.outbox;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The runbook's dead-letter operations over {@link Outbox}: list (payload redacted), inspect one, requeue one or a
 * selection. A requeued row keeps its id; the polling relay, or in cdc mode the safety net after its grace period,
 * publishes it. The relay's operator chain puts every path of its port behind the admin token.
 */
@RestController
@RequestMapping("/admin/dead-letters")
final class DeadLetterAdmin {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterAdmin.class);
    private static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,63}");

    record Requeued(int requeued) {}

    private final Outbox outbox;

    DeadLetterAdmin(Outbox outbox) {
        this.outbox = outbox;
    }

    @GetMapping
    List<DeadLetter> list(@RequestParam(defaultValue = "100") int limit) {
        return outbox.deadLetters(null, false, Math.min(Math.max(limit, 1), 1000));
    }

    @GetMapping("/{id}")
    DeadLetter inspect(@PathVariable UUID id, @RequestParam(defaultValue = "false") boolean includePayload) {
        return outbox.deadLetters(id, includePayload, 1).stream()
                .findFirst()
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND));
    }

    @PostMapping("/{id}/requeue")
    Requeued requeueOne(@PathVariable UUID id) {
        int n = requeue(DeadLetter.Selection.one(id));
        if (n == 0) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        }
        return new Requeued(n);
    }

    @PostMapping("/requeue")
    Requeued requeueMatching(
            @RequestParam(required = false) String eventType,
            @RequestParam(required = false) Instant deadLetteredAfter,
            @RequestParam(required = false) Instant deadLetteredBefore) {
        if (eventType != null && !EVENT_TYPE.matcher(eventType).matches()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST);
        }
        return new Requeued(requeue(new DeadLetter.Selection(null, eventType, deadLetteredAfter, deadLetteredBefore)));
    }

    /** Logged with the selection's values, each validated (a UUID, an event type, instants): nothing forges a line. */
    private int requeue(DeadLetter.Selection selection) {
        int n = outbox.requeue(selection);
        log.info("requeued {} dead letters ({})", n, selection);
        return n;
    }
}
