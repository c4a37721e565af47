package dev.outbox.reconcile;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.outbox.contract.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * {@link Wire} on Kafka, read without a consumer group (partitions assigned, nothing committed): reading changes
 * nothing any consumer sees. An event is looked for on the events topic in the partition its key goes to (Kafka's
 * default partitioner, as every publisher here uses: murmur2 of the payment id), and on the dead-letter topic in every
 * partition; each from the first record stamped at or after the earliest event's time less a minute of clock skew, at
 * most {@code maxScan} records per partition and look-up. That bound is the load a look-up may put on the broker.
 */
public final class KafkaWire implements Wire, AutoCloseable {

    private static final Duration SKEW = Duration.ofMinutes(1);
    private static final Duration POLL = Duration.ofMillis(500);

    private final KafkaConsumer<String, String> consumer;
    private final String topic;
    private final int maxScan;
    private final Duration timeout;

    /**
     * @param client  connection and credentials (a principal that may read the topic and its dead-letter topic)
     * @param maxScan records read at most per partition and look-up
     * @param timeout time a look-up may take at most; what it did not reach counts as not found
     */
    public KafkaWire(Map<String, Object> client, String topic, int maxScan, Duration timeout) {
        this.consumer = TopicScan.consumer(client);
        this.topic = topic;
        this.maxScan = maxScan;
        this.timeout = timeout;
    }

    @Override
    public synchronized Map<UUID, String> findOnTopic(Collection<Event> events) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, List<Event>> byPartition = events.stream()
                .collect(Collectors.groupingBy(e -> new TopicPartition(topic, partitionOf(e, partitions.size()))));
        Map<UUID, String> found = new HashMap<>();
        byPartition.forEach((partition, wanted) -> found.putAll(scan(List.of(partition), wanted)));
        return found;
    }

    @Override
    public synchronized Map<UUID, String> findDeadLettered(Collection<Event> events) {
        String deadLetters = Topics.deadLetters(topic);
        List<TopicPartition> partitions = consumer.partitionsFor(deadLetters, timeout).stream()
                .map(p -> new TopicPartition(deadLetters, p.partition()))
                .toList();
        return partitions.isEmpty() ? Map.of() : scan(partitions, events);
    }

    /** The partition Kafka's default partitioner gives a record keyed by the event's payment id. */
    static int partitionOf(Event event, int partitions) {
        return Utils.toPositive(Utils.murmur2(event.paymentId().toString().getBytes(StandardCharsets.UTF_8)))
                % partitions;
    }

    private Map<UUID, String> scan(List<TopicPartition> partitions, Collection<Event> events) {
        Set<String> wanted = new HashSet<>();
        events.forEach(e -> wanted.add(e.id().toString()));
        Instant earliest =
                events.stream().map(Event::occurredAt).min(Instant::compareTo).orElseThrow();
        long from = earliest.minus(SKEW).toEpochMilli();
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        partitions.forEach(p -> timestamps.put(p, from));
        Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(timestamps, timeout);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        Map<TopicPartition, Long> stops = new HashMap<>();
        consumer.assign(partitions);
        for (TopicPartition p : partitions) {
            OffsetAndTimestamp start = starts.get(p);
            long begin = start == null ? ends.get(p) : start.offset();
            consumer.seek(p, begin);
            stops.put(p, Math.min(ends.get(p), begin + maxScan));
        }
        Map<UUID, String> found = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (found.size() < wanted.size()
                && System.nanoTime() < deadline
                && partitions.stream().anyMatch(p -> consumer.position(p) < stops.get(p))) {
            for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                String id = TopicScan.id(r);
                if (r.offset() < stops.get(new TopicPartition(r.topic(), r.partition()))
                        && id != null
                        && wanted.contains(id)) {
                    found.putIfAbsent(UUID.fromString(id), r.topic() + " " + r.partition() + "@" + r.offset());
                }
            }
        }
        consumer.assign(List.of());
        return found;
    }

    @Override
    public synchronized void close() {
        consumer.close();
    }
}
