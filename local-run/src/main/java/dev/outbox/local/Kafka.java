package dev.outbox.local;

import java.util.Map;

/**
 * What the local run and the tests need of a plaintext or secured Kafka broker, whichever started it: in this JVM
 * ({@link KafkaBroker}) or, in the tests, in a child JVM or a container.
 */
public interface Kafka extends AutoCloseable {

    String bootstrapServers();

    /** What a client needs to reach this broker: bootstrap servers and, when secured, the admin's credential. */
    Map<String, Object> adminClientProperties();

    @Override
    void close();
}
