package dev.outbox.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the local run and the tests need of a PostgreSQL server, whichever started it: an embedded one
 * ({@link PostgresServer}) or, in the tests, a container. The superuser logs in with a password (scram-sha-256,
 * {@link LocalCredentials#POSTGRES}); databases isolate the users of one server.
 */
public interface Postgres extends AutoCloseable {

    /** Where clients connect from this machine. */
    String host();

    int port();

    default String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
    }

    default Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(
                jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
    }

    /**
     * Creates the pipeline's databases and least-privilege roles from the compose stack's own init script
     * (docker/postgres/init.sql, packaged as {@code local-postgres/init.sql}), once: nothing happens when the
     * role payments_app exists already.
     *
     * @return whether the script ran
     */
    default boolean applyInitScript() {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = 'payments_app'")) {
            if (rs.next()) {
                return false;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the roles", e);
        }
        String script;
        try (var in = Postgres.class.getResourceAsStream("/local-postgres/init.sql")) {
            if (in == null) {
                throw new IllegalStateException("local-postgres/init.sql is not on the class path");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        record Step(String database, String sql) {}
        String database = "postgres";
        StringBuilder sql = new StringBuilder();
        List<Step> steps = new ArrayList<>();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("\\connect ")) {
                database = trimmed.substring("\\connect ".length()).strip();
            } else if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                sql.append(line).append('\n');
                if (trimmed.endsWith(";")) {
                    steps.add(new Step(database, sql.toString()));
                    sql.setLength(0);
                }
            }
        }
        for (Step each : steps) {
            // one statement per round trip: CREATE DATABASE refuses to run inside the implicit transaction of a batch
            try (Connection c = connect(each.database());
                    Statement s = c.createStatement()) {
                s.execute(each.sql());
            } catch (SQLException e) {
                throw new IllegalStateException("init.sql failed on database " + each.database(), e);
            }
        }
        return true;
    }

    @Override
    void close();
}
