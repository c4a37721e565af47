package dev.outbox.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A published schema version never breaks its readers. {@code published/} beside this class holds each schema as it
 * was first published; the schema in the module must keep every field it had, with the same type, format and pattern,
 * and require exactly the fields it required (a new required field is a new version). Every valid example of every
 * version stays valid. A new version adds a schema and its examples; it changes no published one.
 */
class EventSchemaEvolutionTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern PUBLISHED = Pattern.compile("([A-Za-z]+)\\.v([0-9]+)\\.schema\\.json");

    @Test
    void everyPublishedVersionKeepsItsFieldsTypesAndRequiredSet() {
        List<String> breaks = new ArrayList<>();
        EventSchemas.VERSIONS.forEach((type, versions) -> {
            for (int version : versions) {
                JsonNode published = published(type, version);
                JsonNode current = EventSchemas.document(type, version);
                String at = type + " v" + version;
                if (!published.path("$id").equals(current.path("$id"))) {
                    breaks.add(at + ": $id changed");
                }
                for (var field : published.path("properties").properties()) {
                    JsonNode now = current.path("properties").path(field.getKey());
                    if (now.isMissingNode()) {
                        breaks.add(at + ": field " + field.getKey() + " removed");
                        continue;
                    }
                    for (String rule : List.of("type", "format", "pattern")) {
                        if (!field.getValue().path(rule).equals(now.path(rule))) {
                            breaks.add(at + ": field " + field.getKey() + " changed its " + rule);
                        }
                    }
                }
                if (!required(published).equals(required(current))) {
                    breaks.add(at + ": required " + required(published) + " became " + required(current));
                }
                if (!published.path("additionalProperties").equals(current.path("additionalProperties"))) {
                    breaks.add(at + ": additionalProperties changed");
                }
            }
        });
        assertThat(breaks).as("breaking changes to published schemas").isEmpty();
    }

    @Test
    void everyVersionEverPublishedStillReadsItsExamples() {
        EventSchemas schemas = EventSchemas.load();
        EventSchemas.VERSIONS.forEach((type, versions) -> {
            for (int version : versions) {
                List<Example> valid = ExamplePayloads.of(type, version, Kind.VALID);
                assertThat(valid).as(type + " v" + version + " has examples").isNotEmpty();
                for (Example example : valid) {
                    assertThat(schemas.violations(type, version, example.payload()))
                            .as(example.toString())
                            .isEmpty();
                }
            }
        });
    }

    @Test
    void everyVersionOncePublishedIsStillShipped() throws Exception {
        Path published =
                Path.of(EventSchemaEvolutionTests.class.getResource("published").toURI());
        List<String> files;
        try (Stream<Path> list = Files.list(published)) {
            files = list.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        for (String file : files) {
            Matcher name = PUBLISHED.matcher(file);
            assertThat(name.matches()).as(file).isTrue();
            assertThat(EventSchemas.VERSIONS.getOrDefault(name.group(1), List.of()))
                    .as(file + " is still a version the contract ships and reads")
                    .contains(Integer.parseInt(name.group(2)));
        }
    }

    private static TreeSet<String> required(JsonNode schema) {
        TreeSet<String> names = new TreeSet<>();
        schema.path("required").forEach(n -> names.add(n.asString()));
        return names;
    }

    private static JsonNode published(String type, int version) {
        try (InputStream in = EventSchemaEvolutionTests.class.getResourceAsStream(
                "published/" + type + ".v" + version + ".schema.json")) {
            assertThat(in)
                    .as("published/" + type + ".v" + version + " (a version once published stays)")
                    .isNotNull();
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
