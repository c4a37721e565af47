package dev.outbox.testing;

import java.util.Locale;
import java.util.Map;

import dev.outbox.local.Kafka;
import dev.outbox.local.KafkaBroker;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A plaintext single-node KRaft broker in a container of the broker version the tests run in-process
 * ({@link SharedInfra#kafkaImage()}), with the same topic and group settings ({@link KafkaBroker#brokerSettings}).
 */
final class ContainerKafka implements Kafka {

    private final KafkaContainer container;

    private ContainerKafka(KafkaContainer container) {
        this.container = container;
    }

    static ContainerKafka start() {
        KafkaContainer container = definition();
        container.start();
        return new ContainerKafka(container);
    }

    /** The container as it will be started; nothing talks to Docker before {@code start()}. */
    static KafkaContainer definition() {
        KafkaContainer container = new KafkaContainer(SharedInfra.kafkaImage());
        KafkaBroker.brokerSettings(false).forEach((name, value) -> container.withEnv(variable(name), value));
        return container;
    }

    /**
     * The apache/kafka image's spelling of a broker setting: {@code KAFKA_} and the name in upper case, with
     * {@code .} as {@code _}, {@code _} as {@code __} and {@code -} as {@code ___}.
     */
    static String variable(String setting) {
        return "KAFKA_"
                + setting.replace("_", "__")
                        .replace("-", "___")
                        .replace('.', '_')
                        .toUpperCase(Locale.ROOT);
    }

    @Override
    public String bootstrapServers() {
        return container.getBootstrapServers();
    }

    @Override
    public Map<String, Object> adminClientProperties() {
        return Map.of("bootstrap.servers", bootstrapServers(), "security.protocol", "PLAINTEXT");
    }

    @Override
    public void close() {
        container.stop();
    }
}
