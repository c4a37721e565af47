package dev.outbox.reconcile;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.outbox.contract.MessageHeaders;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from the beginning without a consumer group (every partition assigned, nothing committed), so reading
 * it changes nothing the pipeline's consumers see: the invariant check's view of the wire, and the local run's console
 * tail.
 */
public final class TopicScan {

    private TopicScan() {}

    /** Reads everything up to the topic's end offsets at the time of the call, or until the timeout passed. */
    public static List<ConsumerRecord<String, String>> toEnd(
            Map<String, Object> client, String topic, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(client)) {
            List<TopicPartition> partitions = assignAll(consumer, topic);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(300)).forEach(records::add);
            }
        }
        return records;
    }

    /** Hands every record to {@code sink} until the thread is interrupted; waits for the topic to exist. */
    public static void follow(Map<String, Object> client, String topic, Consumer<ConsumerRecord<String, String>> sink) {
        try (KafkaConsumer<String, String> consumer = consumer(client)) {
            while (assignAll(consumer, topic).isEmpty()
                    && !Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
            while (!Thread.currentThread().isInterrupted()) {
                consumer.poll(Duration.ofMillis(500)).forEach(sink);
            }
        }
    }

    /** A header's value as text, {@code null} when absent. */
    public static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** The record's event id header, {@code null} when absent. */
    public static String id(ConsumerRecord<?, ?> record) {
        return header(record, MessageHeaders.ID);
    }

    /**
     * Assigns every partition the topic has now, from the beginning; none while the topic does not exist yet.
     *
     * @return the partitions assigned
     */
    public static List<TopicPartition> assignAll(KafkaConsumer<?, ?> consumer, String topic) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }

    /** A string consumer with {@code client}'s connection and credentials that never commits. */
    public static KafkaConsumer<String, String> consumer(Map<String, Object> client) {
        Map<String, Object> config = new HashMap<>(client);
        config.put("enable.auto.commit", "false");
        config.put("key.deserializer", StringDeserializer.class.getName());
        config.put("value.deserializer", StringDeserializer.class.getName());
        return new KafkaConsumer<>(config);
    }
}
