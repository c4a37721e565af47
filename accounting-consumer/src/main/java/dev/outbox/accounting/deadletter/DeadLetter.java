package dev.outbox.accounting.deadletter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.outbox.contract.DeadLetterHeaders;
import dev.outbox.contract.MessageHeaders;
import dev.outbox.security.FailureCause;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * A record of the consumer's dead-letter topic as an operator sees it. Everything but the reason comes from the
 * record as it arrived, which may be malformed (that is often why it is here): fields it lacks are {@code null},
 * text is cut at {@value #MAX_TEXT} characters. The payload is {@link #REDACTED} unless asked for.
 *
 * @param partition        its partition in the dead-letter topic; with {@code offset}, its identity
 * @param deadLetteredAt   the dead-letter record's timestamp
 * @param reason           the sanitized reason the consumer gave
 * @param originalTopic    where it had failed: topic, partition, offset
 * @param paymentId        the record key (the payment id, when the record is well-formed)
 * @param history          its earlier stays in the dead-letter topic, oldest first (one per replay)
 * @param replayed         the replay of this record, if an operator has replayed it
 */
record DeadLetter(
        int partition,
        long offset,
        Instant deadLetteredAt,
        long ageSeconds,
        String reason,
        String originalTopic,
        Integer originalPartition,
        Long originalOffset,
        String eventId,
        String eventType,
        String aggregateVersion,
        String paymentId,
        List<String> history,
        DeadLetterReplays.Replay replayed,
        String payload) {

    public static final String REDACTED = "<redacted: ?includePayload=true>";
    static final int MAX_TEXT = 200;

    static DeadLetter of(ConsumerRecord<String, byte[]> record, DeadLetterReplays.Replay replayed, boolean payload) {
        Headers h = record.headers();
        Instant at = Instant.ofEpochMilli(record.timestamp());
        List<String> history = new ArrayList<>();
        h.headers(DeadLetterHeaders.HISTORY).forEach(header -> history.add(text(header)));
        Long originalPartition = number(h, KafkaHeaders.DLT_ORIGINAL_PARTITION, Integer.BYTES);
        return new DeadLetter(
                record.partition(),
                record.offset(),
                at,
                Math.max(0, Duration.between(at, Instant.now()).toSeconds()),
                text(h, DeadLetterHeaders.REASON),
                text(h, KafkaHeaders.DLT_ORIGINAL_TOPIC),
                originalPartition == null ? null : originalPartition.intValue(),
                number(h, KafkaHeaders.DLT_ORIGINAL_OFFSET, Long.BYTES),
                text(h, MessageHeaders.ID),
                text(h, MessageHeaders.EVENT_TYPE),
                text(h, MessageHeaders.AGGREGATE_VERSION),
                cut(record.key()),
                List.copyOf(history),
                replayed,
                !payload
                        ? REDACTED
                        : record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8));
    }

    /** The event id, when the record carries a well-formed one. */
    static UUID eventId(ConsumerRecord<String, byte[]> record) {
        String id = text(record.headers(), MessageHeaders.ID);
        try {
            return id == null ? null : UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static String text(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null ? null : text(header);
    }

    private static String text(Header header) {
        return header.value() == null ? null : cut(new String(header.value(), StandardCharsets.UTF_8));
    }

    private static String cut(String text) {
        return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT) + "...";
    }

    /** spring-kafka writes the original partition and offset as big-endian binary numbers. */
    static Long number(Headers headers, String name, int bytes) {
        Header header = headers.lastHeader(name);
        if (header == null || header.value() == null || header.value().length != bytes) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(header.value());
        return bytes == Integer.BYTES ? buffer.getInt() : buffer.getLong();
    }

    /**
     * Which dead letters a listing or a replay takes: any combination; every one when all are {@code null}.
     *
     * @param reason    a part of the reason (e.g. {@code poison:} or {@code PSQLException})
     * @param cause     a failure group's cause, exactly ({@link FailureCause})
     * @param eventType the event_type header, exactly
     * @param after     dead-lettered at or after
     * @param before    dead-lettered before
     */
    record Selection(String reason, String cause, String eventType, Instant after, Instant before) {

        boolean isEverything() {
            return reason == null && cause == null && eventType == null && after == null && before == null;
        }

        boolean matches(ConsumerRecord<String, byte[]> record) {
            if (before != null && record.timestamp() >= before.toEpochMilli()) {
                return false;
            }
            if (after != null && record.timestamp() < after.toEpochMilli()) {
                return false;
            }
            if (eventType != null && !eventType.equals(text(record.headers(), MessageHeaders.EVENT_TYPE))) {
                return false;
            }
            String why = text(record.headers(), DeadLetterHeaders.REASON);
            if (cause != null && !cause.equals(FailureCause.of(why))) {
                return false;
            }
            return reason == null || (why != null && why.contains(reason));
        }

        @Override
        public String toString() {
            return "reason=" + reason + ", cause=" + cause + ", eventType=" + eventType + ", after=" + after
                    + ", before=" + before;
        }
    }

    /**
     * Dead letters of one cause and event type.
     *
     * @param causeClass the reason's first part: {@code poison} or the exception's simple name
     * @param cause      the reason with its UUIDs and numbers replaced ({@link FailureCause})
     * @param eventType  the event_type header, or {@code null} for records without one
     */
    record Group(
            String causeClass, String cause, String eventType, long deadLetters, Instant firstSeen, Instant lastSeen) {}

    /**
     * The set a selection takes, as a dry run shows it and a replay checks it: how many records, and the SHA-256 of
     * their positions ({@code partition@offset}, in order), which only the same set has.
     *
     * @param asOf when the set was read: records dead-lettered later are not in it
     */
    record Matched(long deadLetters, String digest, Instant asOf) {

        static Matched of(List<ConsumerRecord<String, byte[]>> records, Instant asOf) {
            String positions = records.stream()
                    .sorted(Comparator.comparingInt((ConsumerRecord<String, byte[]> r) -> r.partition())
                            .thenComparingLong(ConsumerRecord::offset))
                    .map(r -> r.partition() + "@" + r.offset())
                    .collect(Collectors.joining(","));
            try {
                byte[] hash = MessageDigest.getInstance("SHA-256").digest(positions.getBytes(StandardCharsets.UTF_8));
                return new Matched(records.size(), HexFormat.of().formatHex(hash), asOf);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
