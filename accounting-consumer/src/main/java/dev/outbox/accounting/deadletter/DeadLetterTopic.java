package dev.outbox.accounting.deadletter;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.OperatorRefusal;
import dev.outbox.contract.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.stereotype.Component;

/**
 * Reads the consumer's dead-letter topic for operators, as the replay principal, without a consumer group: each
 * call assigns every partition, reads up to the end offsets it saw when it started and commits nothing, so listing
 * never moves anybody's position and never waits for records that arrive meanwhile.
 */
@Component
final class DeadLetterTopic {

    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaProperties kafka;
    private final DeadLetterProperties properties;
    private final String topic;

    DeadLetterTopic(KafkaProperties kafka, DeadLetterProperties properties, AccountingProperties accounting) {
        this.kafka = kafka;
        this.properties = properties;
        this.topic = Topics.deadLetters(accounting.topic());
    }

    String name() {
        return topic;
    }

    /**
     * The records dead-lettered at or after {@code after} (all when {@code null}) that {@code filter} accepts,
     * oldest first, at most {@code limit}.
     */
    List<ConsumerRecord<String, byte[]>> scan(
            Instant after, Predicate<ConsumerRecord<String, byte[]>> filter, int limit) {
        List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
        long deadline = System.nanoTime() + properties.scanTimeout().toNanos();
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = partitions(consumer);
            if (partitions.isEmpty()) {
                return List.of();
            }
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, properties.scanTimeout());
            if (after == null) {
                consumer.seekToBeginning(partitions);
            } else {
                Map<TopicPartition, Long> times = new HashMap<>();
                partitions.forEach(p -> times.put(p, after.toEpochMilli()));
                Map<TopicPartition, OffsetAndTimestamp> from =
                        consumer.offsetsForTimes(times, properties.scanTimeout());
                for (TopicPartition p : partitions) {
                    OffsetAndTimestamp at = from.get(p);
                    consumer.seek(p, at == null ? end.get(p) : at.offset());
                }
            }
            List<TopicPartition> remaining = new ArrayList<>(partitions);
            remaining.removeIf(p -> consumer.position(p) >= end.get(p));
            while (!remaining.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw OperatorRefusal.brokerUnavailable(
                            "The dead-letter topic could not be read to its end in time; retry.");
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    TopicPartition p = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < end.get(p) && filter.test(record)) {
                        found.add(record);
                    }
                }
                remaining.removeIf(p -> consumer.position(p) >= end.get(p));
            }
        } catch (KafkaException e) {
            throw unavailable(e);
        }
        found.sort(Comparator.<ConsumerRecord<String, byte[]>>comparingLong(ConsumerRecord::timestamp)
                .thenComparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return found.size() > limit ? List.copyOf(found.subList(0, limit)) : found;
    }

    /** The record at that position of the dead-letter topic, if it is there (not beyond the end, not deleted). */
    Optional<ConsumerRecord<String, byte[]>> read(int partition, long offset) {
        long deadline = System.nanoTime() + properties.scanTimeout().toNanos();
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            if (partitions(consumer).stream().noneMatch(p -> p.partition() == partition)) {
                return Optional.empty();
            }
            TopicPartition p = new TopicPartition(topic, partition);
            List<TopicPartition> one = List.of(p);
            consumer.assign(one);
            long first =
                    consumer.beginningOffsets(one, properties.scanTimeout()).get(p);
            long end = consumer.endOffsets(one, properties.scanTimeout()).get(p);
            if (offset < first || offset >= end) {
                return Optional.empty();
            }
            consumer.seek(p, offset);
            while (consumer.position(p) <= offset) {
                if (System.nanoTime() > deadline) {
                    throw OperatorRefusal.brokerUnavailable("The dead-letter record could not be read in time; retry.");
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    if (record.offset() == offset) {
                        return Optional.of(record);
                    }
                }
            }
            return Optional.empty();
        } catch (KafkaException e) {
            throw unavailable(e);
        }
    }

    private List<TopicPartition> partitions(KafkaConsumer<String, byte[]> consumer) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, properties.scanTimeout());
        return infos == null
                ? List.of()
                : infos.stream()
                        .map(i -> new TopicPartition(topic, i.partition()))
                        .toList();
    }

    private KafkaConsumer<String, byte[]> consumer() {
        Map<String, Object> config = properties.asReplayPrincipal(kafka.buildConsumerProperties());
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "accounting-dead-letters");
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 2 * 1024 * 1024);
        return new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /** The client's exception names what failed (authorization, timeout), never a record. */
    private static OperatorRefusal unavailable(KafkaException e) {
        return OperatorRefusal.brokerUnavailable(
                "Kafka refused or did not answer (" + e.getClass().getSimpleName() + ").");
    }
}
