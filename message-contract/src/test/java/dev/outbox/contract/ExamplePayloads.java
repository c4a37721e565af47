package dev.outbox.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract's example payloads ({@code examples.json} beside this class), shared with the services' tests
 * through this module's test jar: per event type and schema version, the payloads every reader accepts, those the
 * schema refuses, and those only the consumer's own rules refuse.
 */
public final class ExamplePayloads {

    public enum Kind {
        VALID("valid"),
        INVALID("invalid"),
        BEYOND_SCHEMA("beyond-schema");

        final String field;

        Kind(String field) {
            this.field = field;
        }
    }

    /** One example: the payload's text as a producer would write it. */
    public record Example(String eventType, int schemaVersion, Kind kind, String name, String payload) {
        @Override
        public String toString() {
            return eventType + " v" + schemaVersion + " " + kind.field + ": " + name;
        }
    }

    private static final JsonNode ROOT = read();

    private ExamplePayloads() {}

    /** The record key the examples are written for: the payment id of every example but one. */
    public static UUID key() {
        return UUID.fromString(ROOT.path("key").asString());
    }

    public static List<Example> all() {
        List<Example> examples = new ArrayList<>();
        EventSchemas.VERSIONS.forEach((type, versions) -> {
            for (int version : versions) {
                for (Kind kind : Kind.values()) {
                    examples.addAll(of(type, version, kind));
                }
            }
        });
        return examples;
    }

    public static List<Example> of(String eventType, int schemaVersion, Kind kind) {
        JsonNode set = ROOT.path(eventType).path(String.valueOf(schemaVersion)).path(kind.field);
        List<Example> examples = new ArrayList<>();
        for (var entry : set.properties()) {
            JsonNode value = entry.getValue();
            String payload = value.isString() ? value.asString() : value.toString();
            examples.add(new Example(eventType, schemaVersion, kind, entry.getKey(), payload));
        }
        return examples;
    }

    private static JsonNode read() {
        try (InputStream in = ExamplePayloads.class.getResourceAsStream("examples.json")) {
            return JsonMapper.builder().build().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
