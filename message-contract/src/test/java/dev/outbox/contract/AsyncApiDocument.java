package dev.outbox.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The AsyncAPI document of the events ({@code docs/asyncapi/payment-events.yaml}), read for tests: checked against
 * the AsyncAPI 3.0.0 JSON Schema (from the {@code @asyncapi/specs} package 6.11.1, a test resource of this module), and
 * used to check a record a relay really writes: topic, key, headers and payload against what the document says.
 */
public final class AsyncApiDocument {

    /** The document, from any module of this build (tests run in their module's directory). */
    public static final Path PATH = Path.of("..", "docs", "asyncapi", "payment-events.yaml");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JsonNode document;
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);

    private AsyncApiDocument(JsonNode document) {
        this.document = document;
    }

    public static AsyncApiDocument read() {
        try {
            return new AsyncApiDocument(
                    YAMLMapper.builder().build().readTree(Files.readString(PATH, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Another document, e.g. a copy a test broke on purpose. */
    static AsyncApiDocument of(JsonNode document) {
        return new AsyncApiDocument(document);
    }

    public JsonNode document() {
        return document;
    }

    /** What the AsyncAPI 3.0.0 specification's own JSON Schema finds wrong with the document. */
    public List<String> specificationViolations() {
        try (InputStream in = AsyncApiDocument.class.getResourceAsStream("/asyncapi/asyncapi-3.0.0.schema.json")) {
            Schema specification = registry.getSchema(JSON.readTree(in));
            return specification.validate(document).stream()
                    .map(Error::toString)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The message of {@code channel} named {@code name}, its references followed. */
    public JsonNode message(String channel, String name) {
        return resolve(document.path("channels").path(channel).path("messages").path(name));
    }

    /** The schema file a message's payload references, parsed. */
    public JsonNode payloadSchema(JsonNode message) {
        String ref = message.path("payload").path("schema").path("$ref").asString();
        try {
            return JSON.readTree(Files.readString(PATH.getParent().resolve(ref), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Everything the document finds wrong with a record written for {@code channel}: its topic, its key, its headers
     * (as text, the way the document describes them) and its payload.
     */
    public List<String> violations(String channel, ProducerRecord<String, byte[]> record) {
        List<String> found = new ArrayList<>();
        JsonNode ch = document.path("channels").path(channel);
        if (!ch.path("address").asString().equals(record.topic())) {
            found.add("topic " + record.topic() + " is not the channel's address " + ch.path("address"));
        }
        // a channel of several messages (the events) has one per event type; the dead letters have one for all
        JsonNode messages = ch.path("messages");
        Header type = record.headers().lastHeader(MessageHeaders.EVENT_TYPE);
        String name = messages.size() == 1
                ? messages.propertyNames().iterator().next()
                : type == null ? "" : new String(type.value(), StandardCharsets.UTF_8);
        JsonNode message = message(channel, name);
        if (message.isMissingNode()) {
            found.add("no message " + name + " on channel " + channel);
            return found;
        }
        ObjectNode headers = JSON.createObjectNode();
        for (Header h : record.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        found.addAll(check("headers", resolve(message.path("headers")), headers));
        found.addAll(check(
                "key",
                resolve(message.path("bindings").path("kafka").path("key")),
                JSON.getNodeFactory().stringNode(record.key())));
        JsonNode payload = message.path("payload");
        if (payload.isObject() && payload.isEmpty()) {
            return found; // any value at all: a dead letter keeps the original's bytes, JSON or not
        }
        try {
            found.addAll(check(
                    "payload",
                    payloadSchema(message),
                    JSON.readTree(new String(record.value(), StandardCharsets.UTF_8))));
        } catch (RuntimeException e) {
            found.add("payload is not JSON");
        }
        return found;
    }

    /**
     * A record a test read from its own topic (tests do not share the real topic names), checked as if it had been
     * read at the channel's address: its key, headers and value.
     */
    public List<String> violationsOffTheChannel(String channel, ConsumerRecord<String, String> record) {
        return violations(
                channel,
                new ProducerRecord<>(
                        document.path("channels").path(channel).path("address").asString(),
                        null,
                        record.key(),
                        record.value() == null ? null : record.value().getBytes(StandardCharsets.UTF_8),
                        record.headers()));
    }

    private List<String> check(String what, JsonNode schema, JsonNode value) {
        return registry.getSchema(schema).validate(value).stream()
                .map(e -> what + ": " + e)
                .toList();
    }

    /** Follows a local reference ({@code #/a/b}) until it reaches what it names. */
    JsonNode resolve(JsonNode node) {
        while (node.has("$ref") && node.path("$ref").asString().startsWith("#/")) {
            node = document.at(node.path("$ref").asString().substring(1));
        }
        return node;
    }
}
