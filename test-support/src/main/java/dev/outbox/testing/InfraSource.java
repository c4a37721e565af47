package dev.outbox.testing;

import java.util.Locale;
import java.util.function.BooleanSupplier;

import dev.outbox.local.Kafka;
import dev.outbox.local.Postgres;
import org.testcontainers.DockerClientFactory;

/**
 * Where the tests' shared PostgreSQL and Kafka come from: containers where a Docker engine is reachable, the
 * embedded servers elsewhere; {@code -Dinfra=testcontainers} or {@code -Dinfra=embedded} decides instead. Either way
 * the tests see the same {@link Postgres} and {@link Kafka}, so the same test classes run on both.
 */
enum InfraSource {
    EMBEDDED {
        @Override
        Postgres startPostgres() {
            return TestPostgres.start(TestPostgres.durableRequested());
        }

        @Override
        Kafka startKafka() {
            return new EmbeddedKafka().start();
        }
    },
    TESTCONTAINERS {
        @Override
        Postgres startPostgres() {
            return ContainerPostgres.start();
        }

        @Override
        Kafka startKafka() {
            return ContainerKafka.start();
        }
    };

    /** The system property that chooses, when set. */
    static final String PROPERTY = "infra";

    abstract Postgres startPostgres();

    abstract Kafka startKafka();

    /**
     * @param requested       the property's value: {@code testcontainers}, {@code embedded}, or {@code null}/blank
     * @param dockerReachable asked only when nothing was requested
     */
    static InfraSource select(String requested, BooleanSupplier dockerReachable) {
        if (requested == null || requested.isBlank()) {
            return dockerReachable.getAsBoolean() ? TESTCONTAINERS : EMBEDDED;
        }
        return switch (requested.strip().toLowerCase(Locale.ROOT)) {
            case "testcontainers" -> {
                if (!dockerReachable.getAsBoolean()) {
                    throw new IllegalStateException(
                            "-D" + PROPERTY + "=testcontainers, but no Docker engine is reachable");
                }
                yield TESTCONTAINERS;
            }
            case "embedded" -> EMBEDDED;
            default ->
                throw new IllegalArgumentException(
                        "-D" + PROPERTY + " must be testcontainers or embedded, not '" + requested + "'");
        };
    }

    /** Testcontainers' own probe: DOCKER_HOST, the local socket, ~/.testcontainers.properties, ... */
    static boolean dockerReachable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }
}
