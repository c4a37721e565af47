package dev.outbox.infra;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A console consumer for the local run: prints every record of a topic from the beginning with its partition,
 * offset, key, headers and value, as the local run's Kafka admin (see {@link InvariantChecker#localKafka}).
 * {@code tail [topic] [bootstrap]}; Ctrl-C stops it.
 */
final class TopicTail {

    private TopicTail() {
    }

    static void main(String[] args) {
        String topic = args.length > 0 ? args[0] : "payments.payment.events";
        String bootstrap = args.length > 1 ? args[1] : "127.0.0.1:9092";
        Map<String, Object> config = new java.util.HashMap<>(InvariantChecker.localKafka(bootstrap));
        config.putAll(Map.of(
                "group.id", "tail-" + UUID.randomUUID(),
                "auto.offset.reset", "earliest",
                "enable.auto.commit", "false",
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            while (true) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    StringBuilder headers = new StringBuilder();
                    for (Header h : r.headers()) {
                        headers.append(' ').append(h.key()).append('=')
                                .append(h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
                    }
                    System.out.printf("%s-%d@%d key=%s%s%n  %s%n", r.topic(), r.partition(), r.offset(), r.key(),
                            headers, r.value());
                }
            }
        }
    }
}
