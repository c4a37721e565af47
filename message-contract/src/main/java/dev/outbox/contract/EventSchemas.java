package dev.outbox.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON Schema (2020-12) of each event type and schema version, resources of this module
 * ({@code dev/outbox/contract/schemas/<type>.v<version>.schema.json}), loaded once and checked with networknt's
 * validator, format assertions on. The producer checks a payload before its outbox insert, the consumer before it
 * reads one: a violation is reported as where and which rule ({@code /amount: pattern}), never a value.
 */
public final class EventSchemas {

    /** Every schema version of every event type this contract ever published; a consumer reads them all. */
    public static final Map<String, List<Integer>> VERSIONS =
            Map.of(EventTypes.PAYMENT_CREATED, List.of(1), EventTypes.PAYMENT_REFUNDED, List.of(1));

    private static final String URI_PREFIX = "urn:payments-outbox:schema:" + EventTypes.PAYMENT + ":";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final String NO_SCHEMA = "no schema for this event type and version";

    private final Map<String, Schema> schemas;

    private EventSchemas(Map<String, Schema> schemas) {
        this.schemas = schemas;
    }

    /** Reads and compiles every published schema; fails if one is missing or names another URI than its own. */
    public static EventSchemas load() {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder()
                        .formatAssertionsEnabled(true)
                        .pathType(PathType.JSON_POINTER)
                        .build()));
        Map<String, Schema> schemas = new LinkedHashMap<>();
        VERSIONS.forEach((type, versions) -> {
            for (int version : versions) {
                JsonNode document = document(type, version);
                String id = document.path("$id").asString("");
                if (!id.equals(uri(type, version))) {
                    throw new IllegalStateException(resource(type, version) + " has $id " + id);
                }
                Schema schema = registry.getSchema(document);
                schema.initializeValidators();
                schemas.put(type + ":" + version, schema);
            }
        });
        return new EventSchemas(Map.copyOf(schemas));
    }

    /** The schema's URI, its {@code $id}: what an event's {@code dataschema} names. */
    public static String uri(String eventType, int schemaVersion) {
        return URI_PREFIX + eventType + ":" + schemaVersion;
    }

    /** The schema document as published, parsed. */
    public static JsonNode document(String eventType, int schemaVersion) {
        String resource = resource(eventType, schemaVersion);
        try (InputStream in = EventSchemas.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no schema " + resource);
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String resource(String eventType, int schemaVersion) {
        return "schemas/" + eventType + ".v" + schemaVersion + ".schema.json";
    }

    public boolean has(String eventType, long schemaVersion) {
        return schemas.containsKey(eventType + ":" + schemaVersion);
    }

    /**
     * What breaks the schema of {@code eventType} at {@code schemaVersion} in {@code payload}: empty when it is
     * valid. Each entry names a place in the payload and a rule, sorted, without any of the payload's values.
     */
    public List<String> violations(String eventType, long schemaVersion, String payload) {
        if (!has(eventType, schemaVersion)) {
            return List.of(NO_SCHEMA);
        }
        JsonNode node;
        try {
            node = JSON.readTree(payload);
        } catch (JacksonException e) {
            return List.of("not JSON");
        }
        return violations(eventType, schemaVersion, node);
    }

    /** The same, for a payload already parsed. */
    public List<String> violations(String eventType, long schemaVersion, JsonNode payload) {
        Schema schema = schemas.get(eventType + ":" + schemaVersion);
        if (schema == null) {
            return List.of(NO_SCHEMA);
        }
        TreeSet<String> found = new TreeSet<>();
        for (Error error : schema.validate(payload)) {
            String at = error.getInstanceLocation().toString();
            String rule = error.getKeyword();
            if ("required".equals(rule) && error.getProperty() != null) {
                // the missing property's name comes from the schema, not from the payload
                rule = "required " + error.getProperty();
            }
            found.add((at.isEmpty() ? "/" : at) + ": " + rule);
        }
        return List.copyOf(found);
    }
}
