package dev.outbox.relay.cdc;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import dev.outbox.relay.outbox.OutboxMarks;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.OutboxRecord;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.ChangeEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the Outbox Event Router's records in WAL order, publishes them, and only then marks them processed,
 * so the engine's offset never passes an event Kafka did not acknowledge. After the acknowledgements it sets
 * published_at for the batch in one UPDATE. A crash anywhere in between repeats events; it never loses one.
 */
final class OutboxChangeConsumer implements DebeziumEngine.ChangeConsumer<ChangeEvent<SourceRecord, SourceRecord>> {

    private static final Logger log = LoggerFactory.getLogger(OutboxChangeConsumer.class);

    private final KafkaPublisher publisher;
    private final OutboxMarks marks;
    private final BooleanSupplier keepGoing;
    private final Timer latency;
    private final Counter deadLetters;

    OutboxChangeConsumer(KafkaPublisher publisher, OutboxMarks marks, BooleanSupplier keepGoing, MeterRegistry meters) {
        this.publisher = publisher;
        this.marks = marks;
        this.keepGoing = keepGoing;
        this.latency = Timer.builder("outbox_publish_latency")
                .description("occurred_at -> acknowledged by Kafka")
                .tag("mode", "cdc")
                .publishPercentileHistogram()
                .register(meters);
        this.deadLetters = Counter.builder("outbox_dead_letters").tag("mode", "cdc").register(meters);
    }

    @Override
    public void handleBatch(List<ChangeEvent<SourceRecord, SourceRecord>> events,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer) throws InterruptedException {
        List<OutboxRecord> batch = new ArrayList<>(events.size());
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            OutboxRecord record = toOutboxRecord(event.value());
            if (record != null) {
                batch.add(record);
            }
        }
        if (!batch.isEmpty()) {
            KafkaPublisher.Outcome outcome = publisher.publishAll(batch, keepGoing);
            for (KafkaPublisher.Rejected rejected : outcome.rejected()) {
                log.error("Kafka rejected event {} for good ({}); dead-lettered on its outbox row",
                        rejected.record().id(), rejected.cause().getClass().getSimpleName());
                marks.deadLetter(rejected.record().id(), rejected.cause());
                deadLetters.increment();
            }
            Instant now = Instant.now();
            List<UUID> ids = new ArrayList<>(outcome.acknowledged().size());
            for (OutboxRecord record : outcome.acknowledged()) {
                ids.add(record.id());
                recordLatency(record, now);
            }
            marks.markPublished(ids);
        }
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
    }

    /** The router's output as the shared message format; {@code null} for heartbeats and non-outbox records. */
    static OutboxRecord toOutboxRecord(SourceRecord record) {
        if (record.topic().startsWith(DebeziumSettings.HEARTBEAT_TOPIC_PREFIX) || record.value() == null) {
            return null;
        }
        String id = header(record, "id");
        if (id == null) {
            log.warn("skipping a record without event id on topic {}", record.topic());
            return null;
        }
        return new OutboxRecord(
                UUID.fromString(id),
                record.topic(),
                String.valueOf(record.key()),
                header(record, "event_type"),
                header(record, "schema_version"),
                header(record, "aggregate_version"),
                header(record, "occurred_at"),
                header(record, "traceparent"),
                String.valueOf(record.value()));
    }

    private static String header(SourceRecord record, String name) {
        Header header = record.headers().lastWithName(name);
        return header == null || header.value() == null ? null : String.valueOf(header.value());
    }

    private void recordLatency(OutboxRecord record, Instant now) {
        if (record.occurredAt() == null) {
            return;
        }
        try {
            Duration d = Duration.between(Instant.parse(record.occurredAt()), now);
            latency.record(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            // the header is informative; a format we do not know never blocks publishing
        }
    }
}
