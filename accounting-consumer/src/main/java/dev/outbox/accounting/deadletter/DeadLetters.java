package dev.outbox.accounting.deadletter;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.accounting.OperatorRefusal;
import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.security.FailureCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The runbook's operations on the consumer's dead-letter topic: list and inspect its records, and replay them to
 * the events topic with their original key, value and headers (so the inbox still recognizes the event id) plus
 * one {@link DeadLetterHeaders#HISTORY} header per stay in the dead-letter topic. A replay publishes a dead-letter
 * record at most once: its position (and timestamp) is claimed in dlt_replays in the transaction that waits for the broker's
 * acknowledgement, so replaying it again, or replaying a selection twice, publishes nothing more.
 */
@Service
final class DeadLetters {

    /** The headers the dead-lettering added; a replay leaves them behind (the history keeps what they said). */
    private static final String DEAD_LETTERING_PREFIX = KafkaHeaders.PREFIX + "dlt-";

    private final DeadLetterTopic topic;
    private final ReplayPublisher publisher;
    private final DeadLetterReplays replays;
    private final TransactionTemplate transaction;
    private final String consumer;
    private final String eventsTopic;
    private final Counter replayed;

    DeadLetters(
            DeadLetterTopic topic,
            ReplayPublisher publisher,
            DeadLetterReplays replays,
            TransactionTemplate transaction,
            AccountingProperties properties,
            MeterRegistry meters) {
        this.topic = topic;
        this.publisher = publisher;
        this.replays = replays;
        this.transaction = transaction;
        this.consumer = properties.consumerName();
        this.eventsTopic = properties.topic();
        this.replayed = Counter.builder("accounting_dead_letters_replayed")
                .description("dead-letter records an operator replayed to the events topic")
                .register(meters);
    }

    /** @param replayed how many records this request published; {@code alreadyReplayed} were replayed before */
    record Replayed(int replayed, int alreadyReplayed) {}

    List<DeadLetter> list(DeadLetter.Selection selection, int limit) {
        List<ConsumerRecord<String, byte[]>> records = topic.scan(selection.after(), selection::matches, limit);
        Map<DeadLetterReplays.Position, DeadLetterReplays.Replay> done = replays.find(
                consumer,
                topic.name(),
                records.stream().map(DeadLetters::position).toList());
        return records.stream()
                .map(r -> DeadLetter.of(r, done.get(position(r)), false))
                .toList();
    }

    Optional<DeadLetter> inspect(int partition, long offset, boolean includePayload) {
        return topic.read(partition, offset).map(r -> DeadLetter.of(r, replayOf(r), includePayload));
    }

    Replayed replay(int partition, long offset, String by) {
        ConsumerRecord<String, byte[]> record = topic.read(partition, offset)
                .orElseThrow(() -> OperatorRefusal.notFound("There is no record at that position of the dead-letter "
                        + "topic (beyond its end, or deleted by its retention)."));
        return replayOne(record, by) ? new Replayed(1, 0) : new Replayed(0, 1);
    }

    /** Failure groups: the records by cause and event type, counted, the largest first. */
    List<DeadLetter.Group> groups(int limit) {
        Map<List<String>, DeadLetter.Group> groups = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : topic.scan(null, r -> true, Integer.MAX_VALUE)) {
            DeadLetter letter = DeadLetter.of(record, null, false);
            String cause = FailureCause.of(letter.reason());
            Instant at = Instant.ofEpochMilli(record.timestamp());
            groups.merge(
                    Arrays.asList(cause, letter.eventType()),
                    new DeadLetter.Group(FailureCause.causeClass(cause), cause, letter.eventType(), 1, at, at),
                    (a, b) -> new DeadLetter.Group(
                            a.causeClass(),
                            a.cause(),
                            a.eventType(),
                            a.deadLetters() + 1,
                            a.firstSeen().isBefore(b.firstSeen()) ? a.firstSeen() : b.firstSeen(),
                            a.lastSeen().isAfter(b.lastSeen()) ? a.lastSeen() : b.lastSeen()));
        }
        return groups.values().stream()
                .sorted(Comparator.comparingLong(DeadLetter.Group::deadLetters)
                        .reversed()
                        .thenComparing(DeadLetter.Group::cause)
                        .thenComparing(g -> String.valueOf(g.eventType())))
                .limit(limit)
                .toList();
    }

    /** The set a replay of {@code selection} would take now: a dry run, which changes nothing. */
    DeadLetter.Matched matched(DeadLetter.Selection selection) {
        Instant asOf = Instant.now();
        return DeadLetter.Matched.of(topic.scan(selection.after(), selection::matches, Integer.MAX_VALUE), asOf);
    }

    /**
     * Replays every record of the selection not replayed before, oldest first, each in its own transaction; on a
     * failure the ones before it stay replayed, and the same request again replays the rest. Audited once it ran.
     *
     * @param expectedDigest a dry run's {@link DeadLetter.Matched#digest()}: nothing is replayed unless the selection
     *                       takes exactly that set of records; {@code null} to take whatever it takes
     */
    Replayed replay(DeadLetter.Selection selection, String expectedDigest, String by) {
        Instant asOf = Instant.now();
        List<ConsumerRecord<String, byte[]>> records =
                topic.scan(selection.after(), selection::matches, Integer.MAX_VALUE);
        DeadLetter.Matched matched = DeadLetter.Matched.of(records, asOf);
        if (expectedDigest != null && !expectedDigest.equals(matched.digest())) {
            throw OperatorRefusal.conflict(
                    "selection-changed",
                    "The selection changed",
                    "The selection takes another set than the dry run's (" + matched.deadLetters()
                            + " dead letters now): nothing was replayed. Run the dry run again.");
        }
        int published = 0;
        int skipped = 0;
        try {
            for (ConsumerRecord<String, byte[]> record : records) {
                if (replayOne(record, by)) {
                    published++;
                } else {
                    skipped++;
                }
            }
        } catch (OperatorRefusal e) {
            throw OperatorRefusal.brokerUnavailable(e.getMessage() + " " + published
                    + " records were replayed before; the same request again replays the rest.");
        } finally {
            replays.requested(consumer, topic.name(), by, selection, matched, published, skipped);
        }
        return new Replayed(published, skipped);
    }

    List<DeadLetterReplays.Request> requests(int limit) {
        return replays.requests(consumer, topic.name(), limit);
    }

    /** Claims the record's replay and publishes it, in one transaction: a failed publish leaves no claim. */
    private boolean replayOne(ConsumerRecord<String, byte[]> record, String by) {
        DeadLetterReplays.Position position = position(record);
        boolean published = transaction.execute(tx -> {
            if (!replays.claim(consumer, topic.name(), position, DeadLetter.eventId(record), by)) {
                return false;
            }
            RecordMetadata landed = publisher.publish(toEventsTopic(record));
            replays.landed(consumer, topic.name(), position, landed.partition(), landed.offset());
            return true;
        });
        if (published) {
            replayed.increment();
        }
        return published;
    }

    /**
     * The record as it was before it failed (key, value, every header it arrived with, its earlier history), plus
     * one history entry for this stay in the dead-letter topic. No partition: the key picks it, as for the relay.
     */
    ProducerRecord<String, byte[]> toEventsTopic(ConsumerRecord<String, byte[]> record) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            if (!header.key().startsWith(DEAD_LETTERING_PREFIX) && !header.key().equals(DeadLetterHeaders.REASON)) {
                headers.add(header);
            }
        }
        headers.add(DeadLetterHeaders.HISTORY, history(record).getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(eventsTopic, null, record.key(), record.value(), headers);
    }

    /** {@code <dlt>-<partition>@<offset> from <topic>-<partition>@<offset> at <instant>: <reason>} */
    private String history(ConsumerRecord<String, byte[]> record) {
        DeadLetter letter = DeadLetter.of(record, null, false);
        return topic.name() + "-" + record.partition() + "@" + record.offset() + " from " + letter.originalTopic()
                + "-" + letter.originalPartition() + "@" + letter.originalOffset() + " at "
                + Instant.ofEpochMilli(record.timestamp()) + ": " + letter.reason();
    }

    private DeadLetterReplays.Replay replayOf(ConsumerRecord<String, byte[]> record) {
        return replays.find(consumer, topic.name(), List.of(position(record))).get(position(record));
    }

    private static DeadLetterReplays.Position position(ConsumerRecord<?, ?> record) {
        return new DeadLetterReplays.Position(record.partition(), record.offset(), record.timestamp());
    }
}
