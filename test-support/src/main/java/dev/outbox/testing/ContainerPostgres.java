package dev.outbox.testing;

import java.util.ArrayList;
import java.util.List;

import dev.outbox.local.LocalCredentials;
import dev.outbox.local.Postgres;
import dev.outbox.local.PostgresServer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * PostgreSQL in a container ({@value SharedInfra#POSTGRES_IMAGE}, compose's image) with the embedded server's
 * settings ({@link PostgresServer#serverSettings}) and the same login: the superuser postgres/postgres proving its
 * password with scram-sha-256 on every connection, the container's local socket included.
 */
final class ContainerPostgres implements Postgres {

    private final PostgreSQLContainer container;

    private ContainerPostgres(PostgreSQLContainer container) {
        this.container = container;
    }

    static ContainerPostgres start() {
        PostgreSQLContainer container = definition();
        container.start();
        return new ContainerPostgres(container);
    }

    /** The container as it will be started; nothing talks to Docker before {@code start()}. */
    static PostgreSQLContainer definition() {
        List<String> command = new ArrayList<>(List.of("postgres"));
        PostgresServer.serverSettings(TestPostgres.durableRequested()).forEach((name, value) -> {
            command.add("-c");
            command.add(name + "=" + value);
        });
        PostgreSQLContainer container = new PostgreSQLContainer(SharedInfra.POSTGRES_IMAGE)
                .withDatabaseName("postgres")
                .withUsername(LocalCredentials.POSTGRES.user())
                .withPassword(LocalCredentials.POSTGRES.password())
                // initdb trusts local connections unless told otherwise; nothing is trusted on the embedded server
                .withEnv("POSTGRES_INITDB_ARGS", "--auth-local=scram-sha-256 --auth-host=scram-sha-256")
                .withEnv("POSTGRES_HOST_AUTH_METHOD", "scram-sha-256")
                // shared_buffers and parallel workers' segments need more than Docker's default 64 MB of /dev/shm
                .withSharedMemorySize(512L * 1024 * 1024);
        container.setCommand(command.toArray(String[]::new));
        return container;
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
    }

    @Override
    public void close() {
        container.stop();
    }
}
