package dev.outbox.relay.publish;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.outbox.contract.EventRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The one Kafka producer of the relay: idempotent, acks=all, so a retry never reorders or duplicates within a
 * partition. {@link #send} hands a batch to the producer without waiting; {@link #await} reports each record's
 * outcome within the delivery timeout. Retrying is the caller's: the CDC relay restarts its stream from the last
 * committed offset, the polling relay schedules the row again.
 */
@Component
public final class KafkaPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaPublisher.class);

    private final KafkaProducer<String, byte[]> producer;
    private final Duration roundTimeout;
    private final Counter published;

    KafkaPublisher(PublishProperties properties, MeterRegistry meters) {
        this.producer = new KafkaProducer<>(producerSettings(properties));
        this.roundTimeout = properties.deliveryTimeout();
        this.published = Counter.builder("outbox_relay_published")
                .description("events acknowledged by Kafka")
                .register(meters);
    }

    /**
     * The relay's producer settings, one source for both relay modes and for anything that must publish exactly as
     * the relay does (the benchmark's Kafka Connect worker and bare producer): idempotent, acks=all, lz4, 256 KiB
     * batches after at most 2 ms, timeouts derived from the delivery timeout, and the client's authentication.
     */
    public static Map<String, Object> producerSettings(PublishProperties properties) {
        long delivery = properties.deliveryTimeout().toMillis();
        Map<String, Object> config = new HashMap<>(properties.client());
        config.putAll(Map.<String, Object>ofEntries(
                Map.entry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, properties.bootstrapServers()),
                Map.entry(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay"),
                Map.entry(ProducerConfig.ACKS_CONFIG, "all"),
                Map.entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                Map.entry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5),
                Map.entry(ProducerConfig.LINGER_MS_CONFIG, 2),
                Map.entry(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024),
                Map.entry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
                Map.entry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(delivery * 3 / 4, 10_000)),
                Map.entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) delivery),
                Map.entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.max(100, delivery / 4)),
                Map.entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class),
                Map.entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class)));
        return config;
    }

    /** A record the broker will never take (too large, invalid): dead-letter it, do not retry it. */
    public record Rejected(EventRecord record, Exception cause) {}

    /**
     * Sorts one round's outcomes, in order, until the first retriable failure: acknowledged records, records the
     * broker refuses for good. Everything from the first retriable failure on is sent again, in order, so a retry
     * never lets a later event of a partition overtake an earlier one.
     *
     * @return the index of the first retriable failure, or -1 when there is none
     */
    public static int split(
            List<EventRecord> sent, List<Exception> outcomes, List<EventRecord> acknowledged, List<Rejected> rejected) {
        for (int i = 0; i < outcomes.size(); i++) {
            Exception failure = outcomes.get(i);
            if (failure == null) {
                acknowledged.add(sent.get(i));
            } else if (isPermanent(failure)) {
                rejected.add(new Rejected(sent.get(i), failure));
            } else {
                return i;
            }
        }
        return -1;
    }

    /**
     * One round, no retries of its own: sends the records in order and reports, per record, {@code null} when
     * Kafka acknowledged it or the failure. A record the producer refuses outright (it cannot be serialized, it
     * is too large) fails alone; once the broker is too slow to take records (half the delivery timeout has
     * passed, or a send timed out) the rest are reported failed without being sent, and no acknowledgement is
     * awaited past the delivery timeout, so a round stays within it whatever the producer does.
     *
     * @throws InterruptedException when the thread is interrupted (shutdown); nothing is reported then
     */
    public List<Exception> sendOnce(List<EventRecord> records) throws InterruptedException {
        return await(send(records));
    }

    /**
     * Records handed to the producer, each as its acknowledgement's future or the failure that kept it from being
     * sent, and the moment past which no acknowledgement is awaited.
     */
    public static final class Round {
        private final List<Object> sent;
        private final long deadline;

        private Round(List<Object> sent, long deadline) {
            this.sent = sent;
            this.deadline = deadline;
        }
    }

    /**
     * Hands the records to the producer, in order, without waiting for an acknowledgement: the first half of
     * {@link #sendOnce}, so that a caller can send the next records while these are acknowledged.
     */
    public Round send(List<EventRecord> records) throws InterruptedException {
        long deadline = System.nanoTime() + roundTimeout.toNanos();
        long stopSending = System.nanoTime() + roundTimeout.toNanos() / 2;
        List<Object> sent = new ArrayList<>(records.size());
        Exception brokerFailure = null;
        for (EventRecord record : records) {
            if (brokerFailure == null && System.nanoTime() > stopSending) {
                brokerFailure =
                        new org.apache.kafka.common.errors.TimeoutException("broker too slow to accept records");
            }
            if (brokerFailure != null) {
                sent.add(brokerFailure);
                continue;
            }
            try {
                sent.add(producer.send(record.toProducerRecord()));
            } catch (org.apache.kafka.common.errors.InterruptException e) {
                throw new InterruptedException("interrupted while sending");
            } catch (Exception e) {
                sent.add(e);
                if (!isPermanent(e)) {
                    brokerFailure = e;
                }
            }
        }
        return new Round(sent, deadline);
    }

    /**
     * The second half: each record's outcome, {@code null} when Kafka acknowledged it, else the failure; never
     * waiting past the round's deadline.
     */
    public List<Exception> await(Round round) throws InterruptedException {
        List<Exception> outcomes = new ArrayList<>(round.sent.size());
        int acknowledged = 0;
        for (Object s : round.sent) {
            @SuppressWarnings("unchecked")
            Exception failure = s instanceof Exception e ? e : await((Future<RecordMetadata>) s, round.deadline);
            outcomes.add(failure);
            acknowledged += failure == null ? 1 : 0;
        }
        published.increment(acknowledged);
        return outcomes;
    }

    /**
     * Waits for one acknowledgement, but never past the round's deadline: a producer that keeps records waiting
     * for metadata longer than its delivery timeout must not hold a batch (or a lease) hostage.
     *
     * @return {@code null} when acknowledged, else the failure
     */
    private static Exception await(Future<RecordMetadata> future, long deadline) throws InterruptedException {
        try {
            future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause() instanceof Exception c ? c : e;
        } catch (java.util.concurrent.TimeoutException e) {
            return new org.apache.kafka.common.errors.TimeoutException(
                    "no acknowledgement within the delivery timeout");
        }
    }

    /** Failures that concern the record itself, not the broker: retrying them can never succeed. */
    static boolean isPermanent(Exception e) {
        return e instanceof RecordTooLargeException
                || e instanceof RecordBatchTooLargeException
                || e instanceof InvalidRecordException
                || e instanceof SerializationException;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
