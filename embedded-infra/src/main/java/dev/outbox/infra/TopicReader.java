package dev.outbox.infra;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.outbox.contract.MessageHeaders;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from the beginning, without a consumer group (every partition assigned, nothing committed): the
 * one reader of the tests, the invariant checker and the console tail.
 */
public final class TopicReader {

    private TopicReader() {}

    /** Reads until every one of {@code ids} (event id headers) was seen, or the timeout passed. */
    public static List<ConsumerRecord<String, String>> untilIds(
            Map<String, Object> client, String topic, Collection<String> ids, Duration timeout) {
        Set<String> wanted = Set.copyOf(ids);
        return until(client, topic, seen -> seen.containsAll(wanted), timeout);
    }

    /** Reads until {@code distinctIds} different event ids were seen, or the timeout passed. */
    public static List<ConsumerRecord<String, String>> untilDistinct(
            Map<String, Object> client, String topic, int distinctIds, Duration timeout) {
        return until(client, topic, seen -> seen.size() >= distinctIds, timeout);
    }

    /** Reads everything up to the topic's end offsets at the time of the call. */
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

    /** Hands every record to {@code sink} until the thread is interrupted (the console tail). */
    public static void follow(Map<String, Object> client, String topic, Consumer<ConsumerRecord<String, String>> sink) {
        try (KafkaConsumer<String, String> consumer = consumer(client)) {
            while (assignAll(consumer, topic).isEmpty()
                    && !Thread.currentThread().isInterrupted()) {
                sleep();
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

    public static String id(ConsumerRecord<?, ?> record) {
        return header(record, MessageHeaders.ID);
    }

    private static List<ConsumerRecord<String, String>> until(
            Map<String, Object> client, String topic, Predicate<Set<String>> done, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = consumer(client)) {
            long deadline = System.nanoTime() + timeout.toNanos();
            List<TopicPartition> partitions = List.of();
            while (!done.test(ids) && System.nanoTime() < deadline) {
                if (partitions.isEmpty()) {
                    partitions = assignAll(consumer, topic);
                    if (partitions.isEmpty()) {
                        sleep();
                        continue;
                    }
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
                    records.add(r);
                    ids.add(id(r));
                }
            }
        }
        return records;
    }

    /** Assigns every partition the topic has now, from the beginning; none while the topic does not exist yet. */
    private static List<TopicPartition> assignAll(KafkaConsumer<String, String> consumer, String topic) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }

    private static KafkaConsumer<String, String> consumer(Map<String, Object> client) {
        Map<String, Object> config = new HashMap<>(client);
        config.put("enable.auto.commit", "false");
        config.put("key.deserializer", StringDeserializer.class.getName());
        config.put("value.deserializer", StringDeserializer.class.getName());
        return new KafkaConsumer<>(config);
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
