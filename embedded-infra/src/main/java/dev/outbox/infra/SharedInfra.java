package dev.outbox.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One PostgreSQL server and one Kafka broker per JVM, started on first use and shared by every test in that
 * JVM; tests isolate by database and topic, not by restarting servers.
 */
public final class SharedInfra {

    private static PostgresServer postgres;
    private static KafkaBroker kafka;

    private SharedInfra() {}

    public static synchronized PostgresServer postgres() {
        if (postgres == null) {
            postgres = PostgresServer.start(Ports.free(), null, false);
            Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "pg-shutdown"));
        }
        return postgres;
    }

    public static synchronized KafkaBroker kafka() {
        if (kafka == null) {
            kafka = new KafkaBroker(Ports.free(), tempDir("kafka")).start();
            Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "kafka-shutdown"));
        }
        return kafka;
    }

    /** A fresh database on the shared server, for one test class. */
    public static String freshDatabase(String prefix) {
        String name = prefix + "_" + Long.toHexString(System.nanoTime());
        postgres().createDatabase(name);
        return name;
    }

    static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
