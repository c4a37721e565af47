package dev.outbox.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import dev.outbox.local.Kafka;
import dev.outbox.local.Postgres;
import dev.outbox.local.PostgresServer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PostgreSQL server and one Kafka broker per JVM, started on first use and shared by every test in that
 * JVM; tests isolate by database and topic, not by restarting servers. They come from containers where a Docker
 * engine is reachable and from the embedded servers elsewhere ({@link InfraSource}).
 */
public final class SharedInfra {

    /** The container path's PostgreSQL: compose's image, the major version of the embedded binaries. */
    public static final String POSTGRES_IMAGE = "postgres:" + PostgresServer.MAJOR_VERSION;

    private static final Logger log = LoggerFactory.getLogger(SharedInfra.class);

    private static InfraSource source;
    private static Postgres postgres;
    private static Kafka kafka;

    private SharedInfra() {}

    /** The container path's broker: the version of the Kafka jars this build runs in-process. */
    public static String kafkaImage() {
        return "apache/kafka:" + AppInfoParser.getVersion();
    }

    /** Decided once per JVM, and logged, so a test report says which servers it ran on. */
    private static InfraSource infraSource() {
        if (source == null) {
            String requested = System.getProperty(InfraSource.PROPERTY);
            source = InfraSource.select(requested, InfraSource::dockerReachable);
            log.info(
                    "shared PostgreSQL and Kafka of this JVM: {} ({})",
                    source,
                    requested != null && !requested.isBlank()
                            ? "-D" + InfraSource.PROPERTY + "=" + requested
                            : source == InfraSource.TESTCONTAINERS
                                    ? "a Docker engine is reachable"
                                    : "no Docker engine is reachable");
        }
        return source;
    }

    public static synchronized Postgres postgres() {
        if (postgres == null) {
            postgres = infraSource().startPostgres();
            Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "pg-shutdown"));
        }
        return postgres;
    }

    public static synchronized Kafka kafka() {
        if (kafka == null) {
            kafka = infraSource().startKafka();
            Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "kafka-shutdown"));
        }
        return kafka;
    }

    /** A fresh database on the shared server, for one test class. */
    public static String freshDatabase(String prefix) {
        String name = prefix + "_" + Long.toHexString(System.nanoTime());
        createDatabases(postgres(), name);
        return name;
    }

    /** Creates each database that does not exist yet on {@code server}. */
    public static void createDatabases(Postgres server, String... names) {
        for (String name : names) {
            if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
                throw new IllegalArgumentException("not a plain database name: " + name);
            }
            try (Connection c = server.connect("postgres");
                    Statement s = c.createStatement()) {
                var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'");
                if (!rs.next()) {
                    s.execute("CREATE DATABASE " + name);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("could not create database " + name, e);
            }
        }
    }
}
