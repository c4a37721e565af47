package dev.outbox.testing;

import java.nio.file.Path;
import java.util.Map;

import dev.outbox.local.Kafka;
import dev.outbox.local.KafkaBroker;

/** A plaintext {@link KafkaBroker} in this JVM on free ports, whose log directory is deleted when it closes. */
final class EmbeddedKafka implements Kafka {

    private final Path logDir = ThrowAwayDirectory.create("kafka");
    private final KafkaBroker broker = new KafkaBroker(Ports.free(), Ports.free(), logDir, null);

    EmbeddedKafka start() {
        try {
            broker.start();
            return this;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public Map<String, Object> adminClientProperties() {
        return broker.adminClientProperties();
    }

    @Override
    public void close() {
        broker.close();
        ThrowAwayDirectory.delete(logDir);
    }
}
