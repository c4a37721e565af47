package dev.outbox.relay.cdc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.outbox.contract.EventRecord;
import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.security.ErrorText;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay's delivery, pipelined in three stages on three threads. The engine's thread converts a batch of the
 * Outbox Event Router's records, hands them to the producer and returns for the next batch at once. A completer thread
 * takes the batches in WAL order, waits for their acknowledgements and only then gives the engine their offsets, in
 * order: the offset never passes an event Kafka did not acknowledge. A marker thread sets published_at for everything
 * acknowledged since its last UPDATE, in one statement, off the streaming path. A crash before the offset moved
 * repeats events with their ids; a crash after it and before the mark leaves rows unmarked, which the safety net
 * publishes again (same ids) after its grace: never a loss. A failure to deliver stops the pipeline: nothing after it
 * is committed, the next batch fails the engine, and the relay restarts it from the last committed offset.
 */
final class OutboxChangeConsumer
        implements DebeziumEngine.ChangeConsumer<ChangeEvent<SourceRecord, SourceRecord>>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxChangeConsumer.class);

    /**
     * A batch on its way: its records sent, its acknowledgements awaited by the completer. Of the engine's events only
     * the last is kept: its offset covers the whole batch (an offset is a position in the WAL, and the engine stores
     * the last one marked), and the batch's Connect records become garbage while still young instead of surviving
     * until Kafka acknowledged them.
     */
    private record InFlight(
            ChangeEvent<SourceRecord, SourceRecord> last,
            List<EventRecord> records,
            KafkaPublisher.Round round,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer) {}

    private final KafkaPublisher publisher;
    private final Outbox outbox;
    private final Duration checkOlderThan;
    private final BlockingQueue<InFlight> inFlight;
    private final Thread completer;
    private final Timer latency;
    private final Counter deadLetters;
    private final Counter skipped;
    private final Marks marks;
    private final Instant startedAt = Instant.now();
    private volatile Exception failure;
    private volatile boolean closed;

    /**
     * @param checkOlderThan records that occurred longer ago than this may have been published by the safety net (or
     *                       dead-lettered) while the stream was slow: they are looked up before sending, and so is
     *                       every record that occurred before this stream started (the previous stream or the net may
     *                       have delivered it); fresher ones are not, so the steady state pays nothing for it
     * @param maxInFlight    batches sent and not yet completed, at most; the engine waits when there are more
     */
    OutboxChangeConsumer(
            KafkaPublisher publisher, Outbox outbox, Duration checkOlderThan, int maxInFlight, MeterRegistry meters) {
        this.publisher = publisher;
        this.outbox = outbox;
        this.checkOlderThan = checkOlderThan;
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
        this.marks = new Marks(outbox);
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
        for (ChangeEvent<SourceRecord, SourceRecord> event : events) {
            EventRecord record = convert(event.value());
            if (record != null) {
                records.add(record);
            }
        }
        withoutAlreadyHandled(records);
        KafkaPublisher.Round round = publisher.send(records);
        ChangeEvent<SourceRecord, SourceRecord> last = events.isEmpty() ? null : events.get(events.size() - 1);
        while (!inFlight.offer(new InFlight(last, records, round, committer), 100, TimeUnit.MILLISECONDS)) {
            failIfStopped();
        }
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

    /** The completer's loop: each batch in order, coalescing the marks of those that completed meanwhile. */
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
     * Waits for each batch's acknowledgements in order. Every batch up to the first with a retriable failure gets its
     * offsets handed to the engine and its acknowledged events queued for marking; from that batch on nothing does,
     * and the pipeline stops, so the engine resends them after its restart.
     */
    private void finish(List<InFlight> batches) throws InterruptedException {
        List<UUID> acknowledged = new ArrayList<>();
        InFlight last = null;
        Instant now = Instant.now();
        for (InFlight batch : batches) {
            List<Exception> outcomes = publisher.await(batch.round());
            if (failure != null) {
                markWhatKafkaTook(batch, outcomes, acknowledged);
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
                markWhatKafkaTook(batch, outcomes, acknowledged);
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
            for (EventRecord record : acked) {
                acknowledged.add(record.envelope().id());
                Duration d = Duration.between(record.envelope().occurredAt(), now);
                latency.record(d.isNegative() ? Duration.ZERO : d);
            }
            if (batch.last() != null) {
                batch.committer().markProcessed(batch.last());
            }
            last = batch;
        }
        if (last != null) {
            last.committer().markBatchFinished();
        }
        marks.add(acknowledged);
    }

    /**
     * After a failed delivery nothing more is committed, but what Kafka did take (before the failure, or late, once it
     * was back) is marked: the restarted stream, which starts from the last committed offset, then skips it instead of
     * sending it a second time.
     */
    private static void markWhatKafkaTook(InFlight batch, List<Exception> outcomes, List<UUID> acknowledged) {
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == null) {
                acknowledged.add(batch.records().get(i).envelope().id());
            }
        }
    }

    /**
     * Stops taking batches, then completes those in flight (their offsets then reach the engine before it stops) and
     * writes the marks still pending, for at most {@code timeout} in all.
     */
    void drain(Duration timeout) {
        closed = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            completer.join(timeout.toMillis());
            marks.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        completer.interrupt();
        marks.close();
    }

    /**
     * published_at, set off the streaming path: the completer queues the ids Kafka acknowledged, the marker thread
     * writes all that queued up since its last UPDATE in one statement (the more the relay has to do, the more each
     * statement carries). When the database cannot keep up, at most {@link #MAX_PENDING} ids wait and the completer
     * waits with them; when it fails, the ids stay queued and the statement is tried again.
     */
    private static final class Marks {
        static final int MAX_PENDING = 100_000;
        static final int PER_STATEMENT = 20_000;

        private final Outbox outbox;
        private final Thread marker;
        private final List<UUID> pending = new ArrayList<>();
        private volatile boolean closed;

        Marks(Outbox outbox) {
            this.outbox = outbox;
            this.marker = new Thread(this::run, "cdc-relay-marker");
            this.marker.setDaemon(true);
            this.marker.start();
        }

        synchronized void add(List<UUID> ids) throws InterruptedException {
            while (pending.size() >= MAX_PENDING && !closed) {
                wait(100);
            }
            pending.addAll(ids);
            notifyAll();
        }

        private synchronized List<UUID> take() throws InterruptedException {
            while (pending.isEmpty() && !closed) {
                wait(100);
            }
            List<UUID> ids = new ArrayList<>(pending.subList(0, Math.min(PER_STATEMENT, pending.size())));
            pending.subList(0, ids.size()).clear();
            notifyAll();
            return ids;
        }

        private synchronized void putBack(List<UUID> ids) {
            pending.addAll(0, ids);
        }

        private synchronized boolean idle() {
            return pending.isEmpty();
        }

        private void run() {
            while (!closed || !idle()) {
                List<UUID> ids;
                try {
                    ids = take();
                } catch (InterruptedException e) {
                    return;
                }
                if (ids.isEmpty()) {
                    continue;
                }
                try {
                    outbox.markPublished(ids, null);
                } catch (RuntimeException e) {
                    putBack(ids);
                    log.warn("marking {} published events failed, trying again: {}", ids.size(), ErrorText.sanitize(e));
                    if (!pause(Duration.ofSeconds(1))) {
                        return;
                    }
                }
            }
        }

        private static boolean pause(Duration d) {
            try {
                Thread.sleep(d.toMillis());
                return true;
            } catch (InterruptedException e) {
                return false;
            }
        }

        /** Writes what is pending, for at most {@code timeout}, then stops the marker. */
        void drain(Duration timeout) throws InterruptedException {
            closed = true;
            marker.join(Math.max(1, timeout.toMillis()));
        }

        void close() {
            closed = true;
            marker.interrupt();
        }
    }

    /**
     * Drops the records whose rows are already published or dead-lettered: after a restart the stream resumes from
     * its last committed offset, and what the previous stream acknowledged after that offset, or the safety net
     * delivered meanwhile, must not go out twice. Only records written before this stream started, or old enough for
     * the net to have taken them, are looked up.
     */
    private void withoutAlreadyHandled(List<EventRecord> batch) {
        Instant horizon = Instant.now().minus(checkOlderThan);
        Instant limit = horizon.isAfter(startedAt) ? horizon : startedAt;
        List<UUID> old = batch.stream()
                .filter(r -> r.envelope().occurredAt().isBefore(limit))
                .map(r -> r.envelope().id())
                .toList();
        if (old.isEmpty()) {
            return;
        }
        Set<UUID> handled = outbox.alreadyHandled(old);
        if (!handled.isEmpty()) {
            batch.removeIf(r -> handled.contains(r.envelope().id()));
            skipped.increment(handled.size());
            log.debug("skipped {} streamed events already published or dead-lettered", handled.size());
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
