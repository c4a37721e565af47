package dev.outbox.contract;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which outbox_messages column becomes which part of the record: the one mapping both relay modes follow. The CDC
 * relay hands it to Debezium's Outbox Event Router ({@link #routerHeaderPlacement()}), the polling relay reads the
 * same columns into an {@link EventEnvelope}.
 */
public final class OutboxColumns {

    public static final String ID = "id";
    public static final String AGGREGATE_TYPE = "aggregate_type";
    public static final String AGGREGATE_ID = "aggregate_id";
    public static final String PAYLOAD = "payload";

    /** Columns carried as headers (besides {@link #ID}, which the router places as the {@code id} header). */
    public static final Map<String, String> HEADER_OF_COLUMN;

    static {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("event_type", MessageHeaders.EVENT_TYPE);
        headers.put("schema_version", MessageHeaders.SCHEMA_VERSION);
        headers.put("aggregate_version", MessageHeaders.AGGREGATE_VERSION);
        headers.put("occurred_at", MessageHeaders.OCCURRED_AT);
        headers.put("trace_parent", MessageHeaders.TRACEPARENT);
        HEADER_OF_COLUMN = java.util.Collections.unmodifiableMap(headers);
    }

    private OutboxColumns() {}

    /** {@code transforms.outbox.table.fields.additional.placement}: {@code column:header:name,...}. */
    public static String routerHeaderPlacement() {
        return HEADER_OF_COLUMN.entrySet().stream()
                .map(e -> e.getKey() + ":header:" + e.getValue())
                .collect(Collectors.joining(","));
    }
}
