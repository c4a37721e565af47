package dev.outbox.contract;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The wire format, pinned: a renamed header or a changed spelling fails here, in milliseconds. */
class EventEnvelopeTests {

    static final EventEnvelope ENVELOPE = new EventEnvelope(
            UUID.fromString("0b8f3a1e-5c7d-4e2f-9a61-3d2b7c8e9f01"),
            EventTypes.PAYMENT_REFUNDED,
            1,
            3,
            Instant.parse("2026-12-02T10:00:00.123456Z"),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");

    @Test
    void theSixHeadersAreSpelledOnceAndInThisOrder() {
        assertThat(MessageHeaders.ALL)
                .containsExactly(
                        "id", "event_type", "schema_version", "aggregate_version", "occurred_at", "traceparent");
        Headers headers = ENVELOPE.toHeaders();
        assertThat(StreamSupport.stream(headers.spliterator(), false)
                        .map(Header::key)
                        .toList())
                .isEqualTo(MessageHeaders.ALL);
        assertThat(values(headers))
                .containsExactly(
                        "0b8f3a1e-5c7d-4e2f-9a61-3d2b7c8e9f01",
                        "PaymentRefunded",
                        "1",
                        "3",
                        "2026-12-02T10:00:00.123456Z",
                        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    }

    @Test
    void headersRoundTripAndTheTraceparentIsOptional() {
        assertThat(EventEnvelope.fromHeaders(ENVELOPE.toHeaders())).isEqualTo(ENVELOPE);
        EventEnvelope untraced =
                new EventEnvelope(ENVELOPE.id(), EventTypes.PAYMENT_CREATED, 1, 1, ENVELOPE.occurredAt(), null);
        assertThat(EventEnvelope.fromHeaders(untraced.toHeaders())).isEqualTo(untraced);
        assertThat(untraced.toHeaders().lastHeader(MessageHeaders.TRACEPARENT)).isNull();
    }

    @Test
    void aMalformedHeaderIsNamedNeverEchoed() {
        Headers noId = ENVELOPE.toHeaders();
        noId.remove(MessageHeaders.ID);
        assertThatThrownBy(() -> EventEnvelope.fromHeaders(noId))
                .isInstanceOf(InvalidEnvelope.class)
                .hasMessage("missing id header");
        for (String[] bad : new String[][] {
            {MessageHeaders.ID, "<script>"},
            {MessageHeaders.AGGREGATE_VERSION, "0"},
            {MessageHeaders.AGGREGATE_VERSION, "-1"},
            {MessageHeaders.SCHEMA_VERSION, "x"},
            {MessageHeaders.OCCURRED_AT, "yesterday"}
        }) {
            Headers headers = ENVELOPE.toHeaders();
            headers.remove(bad[0]);
            headers.add(bad[0], bad[1].getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> EventEnvelope.fromHeaders(headers))
                    .isInstanceOf(InvalidEnvelope.class)
                    .hasMessageContaining(bad[0])
                    .hasMessageNotContaining(bad[1]);
        }
    }

    /**
     * Numeric headers are read in the range of the column they come from, at its limits: schema_version an integer
     * (4294967297 is not version 1), aggregate_version a bigint.
     */
    @Test
    void numericHeadersAreReadInTheRangeOfTheirColumnAndNeverNarrowed() {
        assertThat(withHeader(MessageHeaders.SCHEMA_VERSION, "1").schemaVersion())
                .isEqualTo(1);
        assertThat(withHeader(MessageHeaders.SCHEMA_VERSION, "2147483647").schemaVersion())
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(withHeader(MessageHeaders.AGGREGATE_VERSION, "9223372036854775807")
                        .aggregateVersion())
                .isEqualTo(Long.MAX_VALUE);
        for (String[] bad : new String[][] {
            {MessageHeaders.SCHEMA_VERSION, "4294967297"},
            {MessageHeaders.SCHEMA_VERSION, "2147483648"},
            {MessageHeaders.SCHEMA_VERSION, "0"},
            {MessageHeaders.SCHEMA_VERSION, "-2147483648"},
            {MessageHeaders.AGGREGATE_VERSION, "9223372036854775808"},
            {MessageHeaders.AGGREGATE_VERSION, "0"},
            {MessageHeaders.AGGREGATE_VERSION, "1.0"},
            {MessageHeaders.AGGREGATE_VERSION, " 1"}
        }) {
            assertThatThrownBy(() -> withHeader(bad[0], bad[1]))
                    .as(bad[0] + "=" + bad[1])
                    .isInstanceOf(InvalidEnvelope.class)
                    .hasMessageContaining(bad[0]);
        }
    }

    private static EventEnvelope withHeader(String name, String value) {
        Headers headers = ENVELOPE.toHeaders();
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
        return EventEnvelope.fromHeaders(headers);
    }

    @Test
    void theRoutersHeaderPlacementComesFromTheSameNames() {
        assertThat(OutboxColumns.routerHeaderPlacement())
                .isEqualTo("event_type:header:event_type,"
                        + "schema_version:header:schema_version,aggregate_version:header:aggregate_version,"
                        + "occurred_at:header:occurred_at,trace_parent:header:traceparent");
        assertThat(List.copyOf(OutboxColumns.HEADER_OF_COLUMN.values()))
                .containsExactlyElementsOf(MessageHeaders.ALL.subList(1, 6));
    }

    @Test
    void topicsFollowThePattern() {
        assertThat(Topics.PAYMENT_EVENTS)
                .isEqualTo("payments.payment.events")
                .isEqualTo(Topics.forAggregate(Topics.DEFAULT_PATTERN, EventTypes.PAYMENT));
        assertThat(Topics.deadLetters(Topics.PAYMENT_EVENTS)).isEqualTo("payments.payment.events.DLT");
        assertThat(Topics.forAggregate("t-x.{aggregateType}.events", "payment")).isEqualTo("t-x.payment.events");
        assertThatThrownBy(() -> Topics.forAggregate("fixed", "payment")).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> values(Headers headers) {
        return StreamSupport.stream(headers.spliterator(), false)
                .map(h -> new String(h.value(), StandardCharsets.UTF_8))
                .toList();
    }
}
