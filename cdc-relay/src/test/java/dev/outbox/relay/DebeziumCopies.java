package dev.outbox.relay;

import java.io.InputStream;
import java.net.URL;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

import io.debezium.connector.postgresql.Module;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay's copies of Debezium classes: each must be the one loaded (the relay's classes come first on the class
 * path), and the original beside it must be the one it copies, by SHA-256, so that a Debezium upgrade fails the build
 * until the copy is compared with the new original.
 */
public final class DebeziumCopies {

    private DebeziumCopies() {}

    /**
     * @param copy     the relay's copy
     * @param artifact the Debezium artifact the original comes from, e.g. {@code debezium-connector-common}
     * @param copied   the SHA-256 of the original class file the copy follows
     */
    public static void assertLoadedAndPinned(Class<?> copy, String artifact, String copied) throws Exception {
        String classFile = copy.getName().replace('.', '/') + ".class";
        List<URL> found = Collections.list(DebeziumCopies.class.getClassLoader().getResources(classFile));
        assertThat(found).hasSize(2);
        URL loaded = copy.getProtectionDomain().getCodeSource().getLocation();
        assertThat(loaded.toString()).doesNotContain(artifact);
        URL original = found.stream()
                .filter(url -> url.toString().contains(artifact))
                .findFirst()
                .orElseThrow();
        assertThat(original.toString()).contains(artifact + "-" + Module.version() + ".jar");
        try (InputStream in = original.openStream()) {
            String sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
            assertThat(sha)
                    .as(
                            "Debezium's %s changed (Debezium %s): compare the relay's copy with it, then update its"
                                    + " pinned SHA-256",
                            copy.getSimpleName(), Module.version())
                    .isEqualTo(copied);
        }
    }
}
