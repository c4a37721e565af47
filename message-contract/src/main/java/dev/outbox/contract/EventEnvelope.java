package dev.outbox.contract;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * What identifies an event on the wire, typed: carried as the {@link MessageHeaders} next to the key (the aggregate
 * id) and the value (the JSON payload as is). Both relay modes write it with {@link #toHeaders()}, the consumer reads
 * it with {@link #fromHeaders(Headers)}; values are UTF-8 text, {@code occurred_at} an ISO-8601 instant.
 *
 * @param traceparent W3C trace context, correlation only; may be {@code null}
 */
public record EventEnvelope(
        UUID id, String eventType, int schemaVersion, long aggregateVersion, Instant occurredAt, String traceparent) {

    public EventEnvelope {
        if (id == null || eventType == null || eventType.isBlank() || occurredAt == null) {
            throw new InvalidEnvelope("an envelope needs an id, an event type and occurred_at");
        }
        if (schemaVersion < 1 || aggregateVersion < 1) {
            throw new InvalidEnvelope("schema and aggregate versions start at 1");
        }
    }

    public Headers toHeaders() {
        RecordHeaders headers = new RecordHeaders();
        add(headers, MessageHeaders.ID, id.toString());
        add(headers, MessageHeaders.EVENT_TYPE, eventType);
        add(headers, MessageHeaders.SCHEMA_VERSION, Integer.toString(schemaVersion));
        add(headers, MessageHeaders.AGGREGATE_VERSION, Long.toString(aggregateVersion));
        add(headers, MessageHeaders.OCCURRED_AT, OccurredAt.format(occurredAt));
        if (traceparent != null) {
            add(headers, MessageHeaders.TRACEPARENT, traceparent);
        }
        return headers;
    }

    /**
     * @throws InvalidEnvelope when a required header is missing or malformed; the message names the header, never
     *         its value
     */
    public static EventEnvelope fromHeaders(Headers headers) {
        return new EventEnvelope(
                uuid(required(headers, MessageHeaders.ID), MessageHeaders.ID),
                required(headers, MessageHeaders.EVENT_TYPE),
                (int) positive(
                        required(headers, MessageHeaders.SCHEMA_VERSION),
                        MessageHeaders.SCHEMA_VERSION,
                        Integer.MAX_VALUE),
                positive(
                        required(headers, MessageHeaders.AGGREGATE_VERSION),
                        MessageHeaders.AGGREGATE_VERSION,
                        Long.MAX_VALUE),
                instant(required(headers, MessageHeaders.OCCURRED_AT)),
                text(headers, MessageHeaders.TRACEPARENT));
    }

    private static void add(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A header's value as UTF-8 text; {@code null} when absent or without a value. */
    static String text(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String required(Headers headers, String name) {
        String value = text(headers, name);
        if (value == null || value.isEmpty()) {
            throw new InvalidEnvelope("missing " + name + " header");
        }
        return value;
    }

    private static UUID uuid(String value, String name) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidEnvelope(name + " header is not a UUID");
        }
    }

    /**
     * A whole number from 1 to {@code max}, the range of the column it comes from (schema_version is an integer,
     * aggregate_version a bigint): never narrowed, so 4294967297 is refused rather than read as 1.
     */
    private static long positive(String value, String name, long max) {
        try {
            long n = Long.parseLong(value);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidEnvelope(name + " header is not a positive whole number in the range of its column");
    }

    private static Instant instant(String value) {
        try {
            return OccurredAt.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidEnvelope(MessageHeaders.OCCURRED_AT + " header is not an ISO-8601 instant");
        }
    }
}
