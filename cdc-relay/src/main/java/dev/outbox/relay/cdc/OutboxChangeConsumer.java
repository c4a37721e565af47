package dev.outbox.relay.cdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.outbox.contract.EventRecord;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.security.ErrorText;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay's delivery, pipelined in two stages on two threads, writing nothing back per event. The engine's thread
 * converts a batch of the Outbox Event Router's records, hands them to the producer and returns for the next batch at
 * once. A completer thread takes the batches in WAL order and waits for their acknowledgements; when a batch that
 * carries the slot's horizon message is complete (it and everything before it acknowledged), it stores that horizon
 * ({@link StreamHorizons}) and only then hands the engine the message's offset. So the offset never passes what the
 * stored horizon covers, and a row is published once a stored horizon sees it: a crash anywhere resends, from the last
 * committed offset, only what no stored horizon covers (same ids), never loses an event. A failure to deliver, or a slot
 * that is not the one its horizon is of, stops the pipeline: nothing after it is committed, the next batch fails the
 * engine, and the relay restarts it from the last committed offset.
 */
final class OutboxChangeConsumer
        implements DebeziumEngine.ChangeConsumer<ChangeEvent<SourceRecord, SourceRecord>>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxChangeConsumer.class);

    /** The most ids one stream hands the next to skip. */
    static final int MAX_CARRIED = 100_000;

    /** A horizon message as the stream delivered it: its snapshot, its WAL position, and the engine's event. */
    private record Horizon(String snapshot, String lsn, ChangeEvent<SourceRecord, SourceRecord> event) {}

    /**
     * A batch on its way: its records sent, its acknowledgements awaited by the completer, and the last horizon message
     * among its events, if any. The batch's other engine events are not kept: no offset but a stored horizon's is handed
     * back, and the batch's Connect records become garbage while still young.
     */
    private record InFlight(
            Horizon horizon,
            List<EventRecord> records,
            KafkaPublisher.Round round,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer) {}

    private final KafkaPublisher publisher;
    private final Outbox outbox;
    private final StreamHorizons horizons;
    private final String slot;
    private final String horizonTopic;
    private final String horizonPrefix;
    private final Duration checkOlderThan;
    private final BlockingQueue<InFlight> inFlight;
    private final Thread completer;
    private final Timer latency;
    private final Counter deadLetters;
    private final Counter skipped;
    private final Counter horizonsStored;
    private final Instant startedAt = Instant.now();
    /** Ids Kafka acknowledged since (and in) the batch of the last stored horizon: a restarted stream skips them. */
    private final Set<UUID> acknowledgedSinceHorizon = ConcurrentHashMap.newKeySet();
    /** What the previous stream of this process had acknowledged beyond its last stored horizon. */
    private final Set<UUID> sentByPreviousStream;
    /** Set when Kafka acknowledged events: a horizon is due soon (see HorizonEmitter). */
    private final AtomicBoolean delivered = new AtomicBoolean();
    /** When this stream last stored a horizon: {@code null} before it has. */
    private volatile Instant lastStored;

    private volatile Exception failure;
    private volatile boolean closed;

    /**
     * @param checkOlderThan       records that occurred longer ago than this may have been published by the safety net
     *                             (or dead-lettered) while the stream was slow: they are looked up before sending, and
     *                             so is every record that occurred before this stream started (the previous stream's
     *                             horizon or the net may cover it); fresher ones are not, so the steady state pays
     *                             nothing for it
     * @param maxInFlight          batches sent and not yet completed, at most; the engine waits when there are more
     * @param sentByPreviousStream ids the previous stream of this process had Kafka acknowledge beyond its last stored
     *                             horizon (a failed stream's late acknowledgements): not sent again
     */
    OutboxChangeConsumer(
            KafkaPublisher publisher,
            Outbox outbox,
            StreamHorizons horizons,
            String slot,
            Duration checkOlderThan,
            int maxInFlight,
            Set<UUID> sentByPreviousStream,
            MeterRegistry meters) {
        this.publisher = publisher;
        this.outbox = outbox;
        this.horizons = horizons;
        this.slot = slot;
        this.horizonTopic = DebeziumSettings.MESSAGE_TOPIC;
        this.horizonPrefix = StreamHorizons.prefix(slot);
        this.checkOlderThan = checkOlderThan;
        this.sentByPreviousStream = ConcurrentHashMap.newKeySet();
        this.sentByPreviousStream.addAll(sentByPreviousStream);
        this.inFlight = new ArrayBlockingQueue<>(maxInFlight);
        this.latency = Timer.builder("outbox_publish_latency")
                .description("occurred_at -> acknowledged by Kafka")
                .tag("mode", "cdc")
                .publishPercentileHistogram()
                .register(meters);
        this.deadLetters =
                Counter.builder("outbox_dead_letters").tag("mode", "cdc").register(meters);
        this.skipped = Counter.builder("outbox_cdc_skipped")
                .description("streamed rows not sent because they were already published or dead-lettered")
                .register(meters);
        this.horizonsStored = Counter.builder("outbox_cdc_horizons_stored")
                .description("horizons the stream stored: everything before them acknowledged by Kafka")
                .register(meters);
        this.completer = new Thread(this::complete, "cdc-relay-completer");
        this.completer.setDaemon(true);
        this.completer.start();
    }

    @Override
    public void handleBatch(
            List<ChangeEvent<SourceRecord, SourceRecord>> events,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer)
            throws InterruptedException {
        failIfStopped();
        List<EventRecord> records = new ArrayList<>(events.size());
        Horizon horizon = null;
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            SourceRecord value = event.value();
            if (value.topic().equals(horizonTopic)) {
                Horizon h = horizon(event);
                horizon = h != null ? h : horizon;
                continue;
            }
            EventRecord record = convert(value);
            if (record != null) {
                records.add(record);
            }
        }
        withoutAlreadyHandled(records);
        KafkaPublisher.Round round = publisher.send(records);
        while (!inFlight.offer(new InFlight(horizon, records, round, committer), 100, TimeUnit.MILLISECONDS)) {
            failIfStopped();
        }
    }

    /** The slot's horizon message, or {@code null} for another prefix's (the engine lets through only the slot's). */
    private Horizon horizon(ChangeEvent<SourceRecord, SourceRecord> event) {
        SourceRecord record = event.value();
        if (!(record.value() instanceof Struct value)) {
            return null;
        }
        Struct message = value.getStruct("message");
        Object lsn = record.sourceOffset().get("lsn");
        if (message == null || !horizonPrefix.equals(message.getString("prefix")) || !(lsn instanceof Long position)) {
            return null;
        }
        Object content = message.get("content");
        byte[] bytes = content instanceof ByteBuffer buffer
                ? Arrays.copyOfRange(
                        buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.arrayOffset() + buffer.limit())
                : (byte[]) content;
        return new Horizon(new String(bytes, StandardCharsets.UTF_8), lsnText(position), event);
    }

    /** A WAL position as PostgreSQL writes pg_lsn: the high and low 32 bits in hexadecimal. */
    static String lsnText(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase(Locale.ROOT) + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(Locale.ROOT);
    }

    /** Once delivery failed or the relay stops, the engine gets no further: it stops, and is restarted if it should. */
    private void failIfStopped() throws InterruptedException {
        Exception e = failure;
        if (e != null) {
            throw new IllegalStateException(
                    "delivery failed, restarting the stream from its last committed offset: " + ErrorText.sanitize(e));
        }
        if (closed) {
            throw new InterruptedException("relay stopping");
        }
    }

    /** The completer's loop: each batch in order. */
    private void complete() {
        List<InFlight> done = new ArrayList<>();
        while (!closed || !inFlight.isEmpty()) {
            try {
                InFlight first = inFlight.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                done.add(first);
                inFlight.drainTo(done);
                finish(done);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failure = e;
                log.warn("completing published batches failed: {}", ErrorText.sanitize(e));
            } finally {
                done.clear();
            }
        }
    }

    /**
     * Waits for each batch's acknowledgements in order. Every batch up to the first with a retriable failure is
     * complete; a complete batch that carries a horizon message has its horizon stored and the message's offset handed
     * to the engine. From a failed batch on nothing is, and the pipeline stops, so the engine resends them after its
     * restart.
     */
    private void finish(List<InFlight> batches) throws InterruptedException {
        Instant now = Instant.now();
        for (InFlight batch : batches) {
            List<Exception> outcomes = publisher.await(batch.round());
            if (failure != null) {
                rememberWhatKafkaTook(batch, outcomes);
                continue;
            }
            List<EventRecord> acked = new ArrayList<>(batch.records().size());
            List<KafkaPublisher.Rejected> rejected = new ArrayList<>();
            int retryFrom = KafkaPublisher.split(batch.records(), outcomes, acked, rejected);
            if (retryFrom >= 0) {
                failure = outcomes.get(retryFrom);
                log.warn(
                        "Kafka did not acknowledge event {} ({}); the stream restarts from its last committed offset",
                        batch.records().get(retryFrom).envelope().id(),
                        failure.getClass().getSimpleName());
                rememberWhatKafkaTook(batch, outcomes);
                continue;
            }
            for (KafkaPublisher.Rejected r : rejected) {
                log.error(
                        "Kafka rejected event {} for good ({}); dead-lettered on its outbox row",
                        r.record().envelope().id(),
                        r.cause().getClass().getSimpleName());
                outbox.deadLetter(r.record().envelope().id(), r.cause());
                deadLetters.increment();
            }
            Horizon horizon = batch.horizon();
            if (horizon != null && !store(horizon)) {
                continue;
            }
            if (!acked.isEmpty()) {
                delivered.set(true);
            }
            for (EventRecord record : acked) {
                acknowledgedSinceHorizon.add(record.envelope().id());
                Duration d = Duration.between(record.envelope().occurredAt(), now);
                latency.record(d.isNegative() ? Duration.ZERO : d);
            }
            if (horizon != null) {
                batch.committer().markProcessed(horizon.event());
                batch.committer().markBatchFinished();
            }
        }
    }

    /**
     * Stores the horizon of a complete batch. Everything the stream delivered before its message is acknowledged (the
     * batch and every batch before it); what this stream acknowledged until now is covered from here on.
     *
     * @return whether the stream may go on: not if the slot is not the one the horizon is of (then it stops, and the
     *     leader begins the slot's horizon again before the next stream)
     */
    private boolean store(Horizon horizon) {
        StreamHorizons.Stored stored = horizons.store(slot, horizon.snapshot(), horizon.lsn());
        if (stored == StreamHorizons.Stored.ANOTHER_SLOT) {
            failure = new IllegalStateException("slot " + slot + " confirms beyond its stored horizon: it is not the"
                    + " slot the horizon was stored on (dropped and created again?)");
            log.warn("{}; the stream stops and its horizon begins again", failure.getMessage());
            return false;
        }
        if (stored == StreamHorizons.Stored.STORED) {
            horizonsStored.increment();
            acknowledgedSinceHorizon.clear();
            lastStored = Instant.now();
        }
        return true;
    }

    /**
     * After a failed delivery nothing more is committed or stored, but what Kafka did take (before the failure, or
     * late, once it was back) is remembered: the next stream of this process, which starts from the last committed
     * offset, skips it instead of sending it a second time.
     */
    private void rememberWhatKafkaTook(InFlight batch, List<Exception> outcomes) {
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == null) {
                acknowledgedSinceHorizon.add(batch.records().get(i).envelope().id());
            }
        }
    }

    /** When this stream last stored a horizon (it moved), or {@code null} if it has not. */
    Instant lastStored() {
        return lastStored;
    }

    /** Set when Kafka acknowledged events since the emitter last looked: what makes a horizon due soon. */
    AtomicBoolean delivered() {
        return delivered;
    }

    /**
     * What this stream had Kafka acknowledge beyond its last stored horizon, with what the stream before it had (its
     * records may still be ahead of this one's position): for the next stream to skip. Bounded: past
     * {@value #MAX_CARRIED} ids only this stream's are carried; the others are resent, never lost.
     */
    Set<UUID> acknowledgedSinceHorizon() {
        Set<UUID> ids = new HashSet<>(acknowledgedSinceHorizon);
        if (ids.size() + sentByPreviousStream.size() <= MAX_CARRIED) {
            ids.addAll(sentByPreviousStream);
        }
        return ids;
    }

    /**
     * Stops taking batches, then completes those in flight (a stored horizon's offset then reaches the engine before it
     * stops), for at most {@code timeout}.
     */
    void drain(Duration timeout) {
        closed = true;
        try {
            completer.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        completer.interrupt();
    }

    /**
     * Drops the records whose rows are already published or dead-lettered, and those the previous stream of this
     * process had acknowledged: after a restart the stream resumes from its last committed offset, and what the
     * previous stream's stored horizon covers, what Kafka took late from a failed stream, or what the safety net
     * delivered meanwhile must not go out twice. Only records written before this stream started, or old enough for the
     * net to have taken them, are looked up in the database.
     */
    private void withoutAlreadyHandled(List<EventRecord> batch) {
        int before = batch.size();
        if (!sentByPreviousStream.isEmpty()) {
            batch.removeIf(r -> sentByPreviousStream.contains(r.envelope().id()));
        }
        Instant horizon = Instant.now().minus(checkOlderThan);
        Instant limit = horizon.isAfter(startedAt) ? horizon : startedAt;
        List<UUID> old = batch.stream()
                .filter(r -> r.envelope().occurredAt().isBefore(limit))
                .map(r -> r.envelope().id())
                .toList();
        if (!old.isEmpty()) {
            Set<UUID> handled = outbox.alreadyHandled(old);
            if (!handled.isEmpty()) {
                batch.removeIf(r -> handled.contains(r.envelope().id()));
            }
        }
        if (batch.size() < before) {
            skipped.increment(before - batch.size());
            log.debug("skipped {} streamed events already published or dead-lettered", before - batch.size());
        }
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
