package dev.outbox.accounting.reconcile;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/reconcile}: the reconcile job's last window, its totals and every problem it lists (event id,
 * payment id, verdict, where the event was last seen), as JSON; behind the admin token like every {@code /admin}
 * path. On an instance that does not hold the job's lock, {@code leader} is false and the state is empty.
 */
@RestController
@RequestMapping("/admin/reconcile")
@ConditionalOnBooleanProperty("reconcile.enabled")
final class ReconcileAdmin {

    private final ReconcileJob job;

    ReconcileAdmin(ReconcileJob job) {
        this.job = job;
    }

    @GetMapping
    ReconcileJob.Status status() {
        return job.status();
    }
}
