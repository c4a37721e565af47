package dev.outbox.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import dev.outbox.reconcile.TopicScan;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from the beginning, without a consumer group, until the records a test waits for are there; the
 * reading itself is the invariant check's ({@link TopicScan}).
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
        return TopicScan.toEnd(client, topic, timeout);
    }

    /** A header's value as text, {@code null} when absent. */
    public static String header(ConsumerRecord<?, ?> record, String name) {
        return TopicScan.header(record, name);
    }

    public static String id(ConsumerRecord<?, ?> record) {
        return TopicScan.id(record);
    }

    private static List<ConsumerRecord<String, String>> until(
            Map<String, Object> client, String topic, Predicate<Set<String>> done, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = TopicScan.consumer(client)) {
            long deadline = System.nanoTime() + timeout.toNanos();
            List<TopicPartition> partitions = List.of();
            while (!done.test(ids) && System.nanoTime() < deadline) {
                if (partitions.isEmpty()) {
                    partitions = TopicScan.assignAll(consumer, topic);
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

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
