package dev.outbox.local;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which data directories the local run refuses before starting anything. */
class LocalPipelineTests {

    @Test
    void aClusterOfAnotherPostgresMajorVersionIsRefusedWithAdvice(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve("layout"), "scram-v1");
        Files.createDirectories(home.resolve("postgres"));
        Files.writeString(home.resolve("postgres").resolve("PG_VERSION"), "17\n");

        assertThatThrownBy(() -> LocalPipeline.checkLayout(home))
                .hasMessageContaining("PostgreSQL 17 cluster")
                .hasMessageContaining("runs PostgreSQL " + PostgresServer.MAJOR_VERSION)
                .hasMessageContaining("delete " + home);
    }

    @Test
    void aClusterOfThisMajorVersionAndAnEmptyDirectoryAreAccepted(@TempDir Path home) throws Exception {
        assertThatCode(() -> LocalPipeline.checkLayout(home)).doesNotThrowAnyException();
        Files.writeString(home.resolve("layout"), "scram-v1");
        Files.createDirectories(home.resolve("postgres"));
        Files.writeString(home.resolve("postgres").resolve("PG_VERSION"), PostgresServer.MAJOR_VERSION + "\n");

        assertThatCode(() -> LocalPipeline.checkLayout(home)).doesNotThrowAnyException();
    }

    @Test
    void aDirectoryFromBeforeAuthenticationIsRefused(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("kafka"));

        assertThatThrownBy(() -> LocalPipeline.checkLayout(home)).hasMessageContaining("older build");
    }
}
