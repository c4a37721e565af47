package dev.outbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's data directory that nobody keeps: created under {@code java.io.tmpdir} and deleted with the server, so a
 * run of the tests leaves no clusters or logs behind.
 */
final class ThrowAwayDirectory {

    private static final Logger log = LoggerFactory.getLogger(ThrowAwayDirectory.class);

    private ThrowAwayDirectory() {}

    static Path create(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes {@code dir} and everything in it; call it once the server that wrote there has exited. */
    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not delete {}: {}", dir, e.getMessage());
        }
        if (Files.exists(dir)) {
            log.warn("{} is still there after deleting it", dir);
        }
    }
}
