package dev.outbox.accounting;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.springframework.stereotype.Component;

/**
 * A test-only pause point for the failure suite: with {@code ACCOUNTING_CRASH_POINT=after-db-commit}, the
 * listener stops right after its database commit and before the offset commit, writes
 * {@code ACCOUNTING_CRASH_POINT_FILE}, and waits there for the test to SIGKILL the process. Inert otherwise.
 */
@Component
final class CrashPoint {

    private final boolean afterCommit = "after-db-commit".equals(System.getenv("ACCOUNTING_CRASH_POINT"));
    private final String file = System.getenv("ACCOUNTING_CRASH_POINT_FILE");

    void afterCommit() {
        if (!afterCommit) {
            return;
        }
        try {
            Files.writeString(Path.of(file), "reached after-db-commit\n");
            Thread.sleep(Long.MAX_VALUE);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
