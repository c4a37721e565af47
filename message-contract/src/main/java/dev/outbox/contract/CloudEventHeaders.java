package dev.outbox.contract;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.header.Headers;

/**
 * CloudEvents 1.0 in Kafka's binary content mode, after the {@link MessageHeaders} on every event, in this order: any
 * CloudEvents reader (the CloudEvents SDK's Kafka module, for one) reads the record as an event whose data is the JSON
 * payload. The attributes restate the envelope and the key, nothing new: ce_id is the event id, ce_type the event type,
 * ce_time occurred_at, ce_subject the aggregate (payment) id, ce_dataschema the URI of the payload's JSON Schema
 * ({@link EventSchemas#uri}); ce_source names the service whose transaction committed the event.
 *
 * <p>Readers here go by the {@link MessageHeaders}; {@link #check} refuses a record whose CloudEvents headers say
 * something else (a dead letter, never a guess which one is right). A record without any, published before these
 * headers existed, is read as before.
 */
public final class CloudEventHeaders {

    public static final String ID = "ce_id";
    public static final String TYPE = "ce_type";
    public static final String TIME = "ce_time";
    public static final String SUBJECT = "ce_subject";
    public static final String DATASCHEMA = "ce_dataschema";
    public static final String SPECVERSION = "ce_specversion";
    public static final String SOURCE = "ce_source";
    public static final String CONTENT_TYPE = "content-type";

    public static final List<String> ALL =
            List.of(ID, TYPE, TIME, SUBJECT, DATASCHEMA, SPECVERSION, SOURCE, CONTENT_TYPE);

    public static final String SPEC_VERSION_1_0 = "1.0";
    /** ce_source: payments-api, the one service that commits payment events (through its outbox). */
    public static final String PAYMENTS_API = "urn:payments-outbox:payments-api";

    public static final String JSON = "application/json";

    private static final byte[] SPEC_VERSION_BYTES = SPEC_VERSION_1_0.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SOURCE_BYTES = PAYMENTS_API.getBytes(StandardCharsets.UTF_8);
    private static final byte[] JSON_BYTES = JSON.getBytes(StandardCharsets.UTF_8);
    /**
     * The schema URIs of every type and version the contract has, as header bytes, by type and then version (index
     * version - 1): neither a URI nor a lookup key is built per event.
     */
    private static final Map<String, byte[][]> SCHEMA_URIS = new HashMap<>();

    static {
        EventSchemas.VERSIONS.forEach((type, versions) -> {
            byte[][] uris =
                    new byte[versions.stream().mapToInt(Integer::intValue).max().orElse(0)][];
            versions.forEach(v -> uris[v - 1] = EventSchemas.uri(type, v).getBytes(StandardCharsets.UTF_8));
            SCHEMA_URIS.put(type, uris);
        });
    }

    private CloudEventHeaders() {}

    /**
     * Adds the CloudEvents headers to {@code headers}, which already hold the envelope's ({@link
     * EventEnvelope#toHeaders()}): the restated values share those headers' bytes.
     *
     * @param subject the record's key, the aggregate id; no ce_subject without one
     */
    static void add(Headers headers, EventEnvelope envelope, String subject) {
        headers.add(ID, headers.lastHeader(MessageHeaders.ID).value());
        headers.add(TYPE, headers.lastHeader(MessageHeaders.EVENT_TYPE).value());
        headers.add(TIME, headers.lastHeader(MessageHeaders.OCCURRED_AT).value());
        if (subject != null) {
            headers.add(SUBJECT, subject.getBytes(StandardCharsets.UTF_8));
        }
        headers.add(DATASCHEMA, dataSchema(envelope.eventType(), envelope.schemaVersion()));
        headers.add(SPECVERSION, SPEC_VERSION_BYTES);
        headers.add(SOURCE, SOURCE_BYTES);
        headers.add(CONTENT_TYPE, JSON_BYTES);
    }

    private static byte[] dataSchema(String eventType, int schemaVersion) {
        byte[][] uris = SCHEMA_URIS.get(eventType);
        byte[] uri = uris != null && schemaVersion - 1 < uris.length ? uris[schemaVersion - 1] : null;
        return uri != null ? uri : EventSchemas.uri(eventType, schemaVersion).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks that the record's CloudEvents headers, when it has any, are complete and say what its envelope and key
     * say.
     *
     * @throws InvalidEnvelope naming the header that is missing or disagrees, never its value
     */
    public static void check(Headers headers, EventEnvelope envelope, String key) {
        boolean any = false;
        for (String name : ALL) {
            if (!name.equals(CONTENT_TYPE) && headers.lastHeader(name) != null) {
                any = true;
                break;
            }
        }
        if (!any) {
            return;
        }
        if (!required(headers, SPECVERSION).equals(SPEC_VERSION_1_0)) {
            throw new InvalidEnvelope(SPECVERSION + " header is not " + SPEC_VERSION_1_0);
        }
        if (!required(headers, ID).equals(envelope.id().toString())) {
            throw disagrees(ID, MessageHeaders.ID + " header");
        }
        if (!required(headers, TYPE).equals(envelope.eventType())) {
            throw disagrees(TYPE, MessageHeaders.EVENT_TYPE + " header");
        }
        if (!envelope.occurredAt().equals(time(required(headers, TIME)))) {
            throw disagrees(TIME, MessageHeaders.OCCURRED_AT + " header");
        }
        required(headers, SOURCE);
        String subject = EventEnvelope.text(headers, SUBJECT);
        if (subject != null && !subject.equals(key)) {
            throw disagrees(SUBJECT, "record key");
        }
        String schema = EventEnvelope.text(headers, DATASCHEMA);
        if (schema != null && !schema.equals(EventSchemas.uri(envelope.eventType(), envelope.schemaVersion()))) {
            throw disagrees(DATASCHEMA, MessageHeaders.EVENT_TYPE + " and " + MessageHeaders.SCHEMA_VERSION);
        }
        String contentType = EventEnvelope.text(headers, CONTENT_TYPE);
        if (contentType != null && !contentType.equals(JSON) && !contentType.startsWith(JSON + ";")) {
            throw new InvalidEnvelope(CONTENT_TYPE + " header is not " + JSON);
        }
    }

    private static InvalidEnvelope disagrees(String name, String with) {
        return new InvalidEnvelope(name + " header disagrees with the " + with);
    }

    private static Instant time(String value) {
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidEnvelope(TIME + " header is not an RFC 3339 timestamp");
        }
    }

    private static String required(Headers headers, String name) {
        String value = EventEnvelope.text(headers, name);
        if (value == null || value.isEmpty()) {
            throw new InvalidEnvelope("missing " + name + " header beside the other CloudEvents headers");
        }
        return value;
    }
}
