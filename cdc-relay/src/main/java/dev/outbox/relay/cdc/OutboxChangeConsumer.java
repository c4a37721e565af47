package dev.outbox.relay.cdc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import dev.outbox.contract.EventRecord;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
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
    private final Outbox outbox;
    private final BooleanSupplier keepGoing;
    private final Timer latency;
    private final Counter deadLetters;

    OutboxChangeConsumer(KafkaPublisher publisher, Outbox outbox, BooleanSupplier keepGoing, MeterRegistry meters) {
        this.publisher = publisher;
        this.outbox = outbox;
        this.keepGoing = keepGoing;
        this.latency = Timer.builder("outbox_publish_latency")
                .description("occurred_at -> acknowledged by Kafka")
                .tag("mode", "cdc")
                .publishPercentileHistogram()
                .register(meters);
        this.deadLetters =
                Counter.builder("outbox_dead_letters").tag("mode", "cdc").register(meters);
    }

    @Override
    public void handleBatch(
            List<ChangeEvent<SourceRecord, SourceRecord>> events,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer)
            throws InterruptedException {
        List<EventRecord> batch = new ArrayList<>(events.size());
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            EventRecord record = convert(event.value());
            if (record != null) {
                batch.add(record);
            }
        }
        if (!batch.isEmpty()) {
            KafkaPublisher.Outcome outcome = publisher.publishAll(batch, keepGoing);
            for (KafkaPublisher.Rejected rejected : outcome.rejected()) {
                log.error(
                        "Kafka rejected event {} for good ({}); dead-lettered on its outbox row",
                        rejected.record().envelope().id(),
                        rejected.cause().getClass().getSimpleName());
                outbox.deadLetter(rejected.record().envelope().id(), rejected.cause());
                deadLetters.increment();
            }
            Instant now = Instant.now();
            List<UUID> ids = new ArrayList<>(outcome.acknowledged().size());
            for (EventRecord record : outcome.acknowledged()) {
                ids.add(record.envelope().id());
                Duration d = Duration.between(record.envelope().occurredAt(), now);
                latency.record(d.isNegative() ? Duration.ZERO : d);
            }
            outbox.markPublished(ids, null);
        }
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
    }

    /** A routed record that does not convert (it cannot happen for the outbox's typed columns) is dead-lettered. */
    private EventRecord convert(SourceRecord record) {
        try {
            return RoutedRecords.toEventRecord(record);
        } catch (RuntimeException e) {
            UUID id = RoutedRecords.idOf(record);
            log.error(
                    "a routed record of event {} is not a valid message ({}); dead-lettered on its outbox row",
                    id,
                    e.getClass().getSimpleName());
            if (id != null) {
                outbox.deadLetter(id, e);
                deadLetters.increment();
            }
            return null;
        }
    }
}
