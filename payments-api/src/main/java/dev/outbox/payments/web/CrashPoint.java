package dev.outbox.payments.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.springframework.stereotype.Component;

/**
 * A test-only pause point for the failure suite: with {@code PAYMENTS_CRASH_POINT=after-commit}, a request stops
 * right after its transaction committed and before its response is written, writes
 * {@code PAYMENTS_CRASH_POINT_FILE}, and waits there for the test to SIGKILL the process. Inert otherwise.
 */
@Component
public final class CrashPoint {

    private final boolean afterCommit = "after-commit".equals(System.getenv("PAYMENTS_CRASH_POINT"));
    private final String file = System.getenv("PAYMENTS_CRASH_POINT_FILE");

    public void afterCommit() {
        if (!afterCommit) {
            return;
        }
        try {
            Files.writeString(Path.of(file), "reached after-commit\n");
            Thread.sleep(Long.MAX_VALUE);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
