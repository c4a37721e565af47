package dev.outbox.contract;

import java.util.List;

/**
 * The Kafka headers every event carries, in this order. {@link #ID} is the only dedup key; {@link #TRACEPARENT}
 * (W3C) is correlation only.
 */
public final class MessageHeaders {

    public static final String ID = "id";
    public static final String EVENT_TYPE = "event_type";
    public static final String SCHEMA_VERSION = "schema_version";
    public static final String AGGREGATE_VERSION = "aggregate_version";
    public static final String OCCURRED_AT = "occurred_at";
    public static final String TRACEPARENT = "traceparent";

    public static final List<String> ALL =
            List.of(ID, EVENT_TYPE, SCHEMA_VERSION, AGGREGATE_VERSION, OCCURRED_AT, TRACEPARENT);

    private MessageHeaders() {}
}
