package dev.outbox.infra;

import java.util.Map;

/**
 * What a test needs of a plaintext or secured Kafka broker, whichever started it: in this JVM
 * ({@link KafkaBroker}), in a child JVM ({@link KafkaBroker.ChildProcess}) or in a container ({@link SharedInfra}
 * picks).
 */
public interface Kafka extends AutoCloseable {

    String bootstrapServers();

    /** What a client needs to reach this broker: bootstrap servers and, when secured, the admin's credential. */
    Map<String, Object> adminClientProperties();

    @Override
    void close();
}
