package dev.outbox.contract;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import dev.outbox.contract.ExamplePayloads.Example;
import dev.outbox.contract.ExamplePayloads.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

class EventSchemasTests {

    private static final EventSchemas SCHEMAS = EventSchemas.load();

    static Stream<Example> examples() {
        return ExamplePayloads.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void theSchemaRefusesExactlyTheInvalidExamples(Example example) {
        List<String> violations = SCHEMAS.violations(example.eventType(), example.schemaVersion(), example.payload());
        if (example.kind() == Kind.INVALID) {
            assertThat(violations).as(example.toString()).isNotEmpty();
        } else {
            assertThat(violations).as(example.toString()).isEmpty();
        }
    }

    @Test
    void eachInvalidExampleIsRefusedForItsOwnReason() {
        String created = EventTypes.PAYMENT_CREATED;
        assertThat(violationsOf(created, "no paymentId")).containsExactly("/: required paymentId");
        assertThat(violationsOf(created, "paymentId not a UUID")).containsExactly("/paymentId: format");
        assertThat(violationsOf(created, "amount as a number")).containsExactly("/amount: type");
        assertThat(violationsOf(created, "amount with an exponent")).containsExactly("/amount: pattern");
        assertThat(violationsOf(created, "amount negative")).containsExactly("/amount: pattern");
        assertThat(violationsOf(created, "amount with a leading zero")).containsExactly("/amount: pattern");
        assertThat(violationsOf(created, "currency in lower case")).containsExactly("/currency: pattern");
        assertThat(violationsOf(created, "clientId with a space")).containsExactly("/clientId: pattern");
        assertThat(violationsOf(created, "occurredAt as epoch seconds")).containsExactly("/occurredAt: type");
        assertThat(violationsOf(created, "occurredAt without a zone")).containsExactly("/occurredAt: format");
        assertThat(violationsOf(created, "an array")).containsExactly("/: type");
        assertThat(violationsOf(created, "not JSON")).containsExactly("not JSON");
        assertThat(violationsOf(EventTypes.PAYMENT_REFUNDED, "refundId not a UUID"))
                .containsExactly("/refundId: format");
        assertThat(violationsOf(created, "no clientId")).containsExactly("/: required clientId");
        assertThat(violationsOf(created, "no amount")).containsExactly("/: required amount");
        assertThat(violationsOf(created, "no occurredAt")).containsExactly("/: required occurredAt");
        String refunded = EventTypes.PAYMENT_REFUNDED;
        assertThat(violationsOf(refunded, "no refundId")).containsExactly("/: required refundId");
        assertThat(violationsOf(refunded, "no refundedTotal")).containsExactly("/: required refundedTotal");
        assertThat(violationsOf(refunded, "refundedTotal as a number")).containsExactly("/refundedTotal: type");
        int checked = 19;
        assertThat(ExamplePayloads.of(created, 1, Kind.INVALID).size()
                        + ExamplePayloads.of(refunded, 1, Kind.INVALID).size())
                .as("every invalid example has its reason checked here")
                .isEqualTo(checked);
    }

    @Test
    void aViolationNeverCarriesAValueOfThePayload() {
        for (Example example : ExamplePayloads.of(EventTypes.PAYMENT_CREATED, 1, Kind.INVALID)) {
            String reported = String.join(" ", SCHEMAS.violations(example.eventType(), 1, example.payload()));
            for (String value : List.of("payment-1", "client a", "1E+3", "-12.34", "012.34", "eur", "1796512533")) {
                assertThat(reported).as(example.toString()).doesNotContain(value);
            }
        }
    }

    @Test
    void anUnknownTypeOrVersionHasNoSchema() {
        assertThat(SCHEMAS.has(EventTypes.PAYMENT_CREATED, 1)).isTrue();
        assertThat(SCHEMAS.has(EventTypes.PAYMENT_CREATED, 2)).isFalse();
        assertThat(SCHEMAS.has("PaymentCaptured", 1)).isFalse();
        assertThat(SCHEMAS.violations(EventTypes.PAYMENT_CREATED, 4294967297L, "{}"))
                .containsExactly("no schema for this event type and version");
        assertThat(SCHEMAS.violations(
                        "PaymentCaptured",
                        1,
                        tools.jackson.databind.json.JsonMapper.builder().build().createObjectNode()))
                .containsExactly("no schema for this event type and version");
    }

    @Test
    void eachSchemaNamesItsOwnUri() {
        EventSchemas.VERSIONS.forEach((type, versions) -> versions.forEach(version -> assertThat(
                        EventSchemas.document(type, version).path("$id").asString())
                .isEqualTo("urn:payments-outbox:schema:payment:" + type + ":" + version)));
    }

    /** The Java records the producer serializes and the current schema version name the same fields, all required. */
    @Test
    void theCurrentSchemasAndThePayloadRecordsAgree() {
        assertThat(EventTypes.PAYMENT_EVENTS).isEqualTo(EventSchemas.VERSIONS.keySet());
        assertAgree(EventTypes.PAYMENT_CREATED, PaymentPayloads.PaymentCreated.class);
        assertAgree(EventTypes.PAYMENT_REFUNDED, PaymentPayloads.PaymentRefunded.class);
    }

    private static void assertAgree(String type, Class<? extends Record> payload) {
        JsonNode schema = EventSchemas.document(type, EventTypes.SCHEMA_VERSION);
        Set<String> components = new TreeSet<>(Arrays.stream(payload.getRecordComponents())
                .map(c -> c.getName())
                .toList());
        Set<String> properties = new TreeSet<>(schema.path("properties").propertyNames());
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(n -> required.add(n.asString()));
        assertThat(properties).as(type + " properties").isEqualTo(components);
        assertThat(new TreeSet<>(required)).as(type + " required").isEqualTo(components);
    }

    private static List<String> violationsOf(String type, String name) {
        Example example = ExamplePayloads.of(type, 1, Kind.INVALID).stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow();
        return SCHEMAS.violations(type, 1, example.payload());
    }
}
