package dev.outbox.system;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.outbox.contract.CloudEventHeaders;
import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventSchemas;
import dev.outbox.contract.EventTypes;
import dev.outbox.contract.ExamplePayloads;
import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import dev.outbox.contract.TimeOrderedIds;
import dev.outbox.relay.cdc.ConnectWorker;
import dev.outbox.testing.SharedInfra;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the event contract costs, measured: the JSON Schema check payments-api runs inside each producing transaction
 * (microseconds per event), and the bytes the CloudEvents headers add to each record, before compression and on the
 * broker's disk after the relay's lz4 batching. Not part of the test command: {@code ./mvnw -B -Pbenchmark -pl
 * system-tests -am verify -Dtest=EventContractCostBenchmarkTests}.
 */
@Tag("benchmark")
class EventContractCostBenchmarkTests {

    static final int EVENTS = Integer.getInteger("bench.events", 200_000);
    static final int VALIDATIONS = Integer.getInteger("bench.validations", 500_000);
    /** Events sent one at a time, each waiting for its acknowledgement: one record per batch, as at a trickle. */
    static final int TRICKLE = Integer.getInteger("bench.trickle", 2_000);

    /** The writer's check ({@code OutboxWriter}: the payload as the text it inserts), warm, per event. */
    @Test
    void theSchemaCheckAtWriteTime() {
        EventSchemas schemas = EventSchemas.load();
        List<Example> valid = ExamplePayloads.all().stream()
                .filter(e -> e.kind() == Kind.VALID)
                .toList();
        long sink = 0;
        for (int i = 0; i < VALIDATIONS; i++) { // warm-up: the JIT compiles the validator
            Example e = valid.get(i % valid.size());
            sink += schemas.violations(e.eventType(), e.schemaVersion(), e.payload())
                    .size();
        }
        long[] nanos = new long[VALIDATIONS];
        for (int i = 0; i < VALIDATIONS; i++) {
            Example e = valid.get(i % valid.size());
            long t0 = System.nanoTime();
            sink += schemas.violations(e.eventType(), e.schemaVersion(), e.payload())
                    .size();
            nanos[i] = System.nanoTime() - t0;
        }
        assertThat(sink).as("every example is valid").isZero();
        Arrays.sort(nanos);
        double mean = Arrays.stream(nanos).average().orElseThrow() / 1000.0;
        System.out.printf(
                "COST schema check: %d validations of %d examples, mean %.1f us, p50 %.1f us, p99 %.1f us,"
                        + " p99.9 %.1f us per event%n",
                VALIDATIONS,
                valid.size(),
                mean,
                nanos[VALIDATIONS / 2] / 1000.0,
                nanos[(int) (VALIDATIONS * 0.99)] / 1000.0,
                nanos[(int) (VALIDATIONS * 0.999)] / 1000.0);
    }

    /**
     * The same events, with and without the CloudEvents headers, sent with the relay's producer settings to two
     * topics: record bytes before compression, and the topics' size on the broker's disk.
     */
    @Test
    void theBytesTheCloudEventsHeadersAdd() throws Exception {
        bytesPerEvent("full batches", EVENTS, false);
        bytesPerEvent("one record per batch", TRICKLE, true);
    }

    private static void bytesPerEvent(String how, int events, boolean oneByOne) throws Exception {
        String suffix = Long.toHexString(System.nanoTime());
        String withTopic = "cost-ce-" + suffix;
        String withoutTopic = "cost-plain-" + suffix;
        Map<String, Object> producer =
                ConnectWorker.producerSettings(SharedInfra.kafka().bootstrapServers(), Map.of());
        try (Admin admin = Admin.create(SharedInfra.kafka().adminClientProperties())) {
            admin.createTopics(List.of(new NewTopic(withTopic, 3, (short) 1), new NewTopic(withoutTopic, 3, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            long[] uncompressed = new long[2];
            try (KafkaProducer<String, byte[]> kafka =
                    new KafkaProducer<>(producer, new StringSerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < events; i++) {
                    ProducerRecord<String, byte[]> with = event(withTopic, i).toProducerRecord();
                    RecordHeaders plain = new RecordHeaders();
                    for (Header h : with.headers()) {
                        if (!CloudEventHeaders.ALL.contains(h.key())) {
                            plain.add(h);
                        }
                    }
                    ProducerRecord<String, byte[]> without =
                            new ProducerRecord<>(withoutTopic, null, with.key(), with.value(), plain);
                    uncompressed[0] += size(with);
                    uncompressed[1] += size(without);
                    if (oneByOne) {
                        kafka.send(with).get(30, TimeUnit.SECONDS);
                        kafka.send(without).get(30, TimeUnit.SECONDS);
                    } else {
                        kafka.send(with);
                        kafka.send(without);
                    }
                }
                kafka.flush();
            }
            long withDisk = diskBytes(admin, withTopic);
            long withoutDisk = diskBytes(admin, withoutTopic);
            System.out.printf(
                    "COST CloudEvents headers, %s: %d events; record bytes before compression %.1f with, %.1f"
                            + " without (+%.1f); on the broker's disk after lz4 %.1f with, %.1f without (+%.1f) per"
                            + " event%n",
                    how,
                    events,
                    uncompressed[0] / (double) events,
                    uncompressed[1] / (double) events,
                    (uncompressed[0] - uncompressed[1]) / (double) events,
                    withDisk / (double) events,
                    withoutDisk / (double) events,
                    (withDisk - withoutDisk) / (double) events);
            assertThat(withDisk).isGreaterThan(withoutDisk);
        }
    }

    /** A payment's event as payments-api writes it: a fresh payment, a valid example's payload for it. */
    private static EventRecord event(String topic, int i) {
        UUID payment = TimeOrderedIds.next();
        boolean created = i % 3 != 2;
        String payload = created
                ? "{\"paymentId\":\"" + payment + "\",\"clientId\":\"client-a\",\"amount\":\"" + (10 + i % 90)
                        + ".25\",\"currency\":\"EUR\",\"occurredAt\":\"" + Instant.now() + "\"}"
                : "{\"paymentId\":\"" + payment + "\",\"refundId\":\"" + TimeOrderedIds.next()
                        + "\",\"amount\":\"5.00\",\"currency\":\"EUR\",\"refundedTotal\":\"5.00\",\"occurredAt\":\""
                        + Instant.now() + "\"}";
        EventEnvelope envelope = new EventEnvelope(
                TimeOrderedIds.next(),
                created ? EventTypes.PAYMENT_CREATED : EventTypes.PAYMENT_REFUNDED,
                1,
                created ? 1 : 2,
                Instant.now(),
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        return new EventRecord(topic, payment.toString(), envelope, payload.getBytes(StandardCharsets.UTF_8));
    }

    /** The record's size in a batch before compression (Kafka's own record format). */
    private static int size(ProducerRecord<String, byte[]> record) {
        return DefaultRecord.sizeInBytes(
                0,
                0,
                ByteBuffer.wrap(record.key().getBytes(StandardCharsets.UTF_8)),
                ByteBuffer.wrap(record.value()),
                record.headers().toArray());
    }

    private static long diskBytes(Admin admin, String topic) throws Exception {
        List<Integer> brokers = new ArrayList<>();
        admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).forEach(n -> brokers.add(n.id()));
        long bytes = 0;
        for (var dirs : admin.describeLogDirs(brokers)
                .allDescriptions()
                .get(30, TimeUnit.SECONDS)
                .values()) {
            for (var dir : dirs.values()) {
                for (var replica : dir.replicaInfos().entrySet()) {
                    if (replica.getKey().topic().equals(topic)) {
                        bytes += replica.getValue().size();
                    }
                }
            }
        }
        return bytes;
    }
}
