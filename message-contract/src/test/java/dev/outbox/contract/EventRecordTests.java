package dev.outbox.contract;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One event as the record both relay modes send and the consumer reads back: nothing lost or changed either way. */
class EventRecordTests {

    private static final EventEnvelope ENVELOPE = new EventEnvelope(
            UUID.fromString("01a24205-d4ba-73ee-934d-b9c83dead5a3"),
            EventTypes.PAYMENT_CREATED,
            1,
            1,
            Instant.parse("2026-12-04T17:06:48.145555Z"),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    private static final EventRecord RECORD = new EventRecord(
            Topics.PAYMENT_EVENTS, "payment-1", ENVELOPE, "{\"amount\":\"25.00\"}".getBytes(StandardCharsets.UTF_8));

    @Test
    void theProducerRecordCarriesTopicKeyPayloadAndTheEnvelopesHeadersAndReadsBackEqual() {
        ProducerRecord<String, byte[]> sent = RECORD.toProducerRecord();
        assertThat(sent.topic()).isEqualTo(Topics.PAYMENT_EVENTS);
        assertThat(sent.key()).isEqualTo("payment-1");
        assertThat(sent.value()).isEqualTo(RECORD.payload());
        assertThat(sent.partition()).as("the key decides the partition").isNull();
        assertThat(sent.headers().toArray())
                .extracting(Header::key)
                .startsWith(MessageHeaders.ALL.toArray(String[]::new))
                .endsWith(CloudEventHeaders.ALL.toArray(String[]::new));

        ConsumerRecord<String, byte[]> received = new ConsumerRecord<>(sent.topic(), 0, 7, sent.key(), sent.value());
        sent.headers().forEach(h -> received.headers().add(h));
        assertThat(EventRecord.of(received)).isEqualTo(RECORD).hasSameHashCodeAs(RECORD);
    }

    @Test
    void recordsAreEqualOnlyWhenEveryPartIs() {
        EventRecord same = new EventRecord(
                RECORD.topic(),
                RECORD.key(),
                RECORD.envelope(),
                RECORD.payload().clone());
        assertThat(RECORD)
                .isEqualTo(same)
                .hasSameHashCodeAs(same)
                .isNotEqualTo("a record")
                .isNotEqualTo(null);
        assertThat(RECORD).isNotEqualTo(new EventRecord("other", RECORD.key(), ENVELOPE, RECORD.payload()));
        assertThat(RECORD).isNotEqualTo(new EventRecord(RECORD.topic(), "other", ENVELOPE, RECORD.payload()));
        assertThat(RECORD).isNotEqualTo(new EventRecord(RECORD.topic(), null, ENVELOPE, RECORD.payload()));
        assertThat(RECORD)
                .isNotEqualTo(new EventRecord(
                        RECORD.topic(),
                        RECORD.key(),
                        new EventEnvelope(
                                UUID.randomUUID(),
                                ENVELOPE.eventType(),
                                ENVELOPE.schemaVersion(),
                                ENVELOPE.aggregateVersion(),
                                ENVELOPE.occurredAt(),
                                ENVELOPE.traceparent()),
                        RECORD.payload()));
        assertThat(RECORD).isNotEqualTo(new EventRecord(RECORD.topic(), RECORD.key(), ENVELOPE, new byte[] {1}));
        assertThat(RECORD.hashCode())
                .isNotEqualTo(new EventRecord(RECORD.topic(), RECORD.key(), ENVELOPE, new byte[] {1}).hashCode());
    }

    /** A record's text names where it goes and how big it is, never the payload itself. */
    @Test
    void itsTextShowsNoPayload() {
        assertThat(RECORD.toString())
                .contains(Topics.PAYMENT_EVENTS, "key=payment-1", "18 bytes")
                .doesNotContain("25.00");
        assertThat(new EventRecord("t", null, ENVELOPE, null).toString()).contains("0 bytes");
    }

    @Test
    void aRecordWithoutTopicOrEnvelopeIsRefused() {
        assertThatThrownBy(() -> new EventRecord(null, "k", ENVELOPE, new byte[0]))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new EventRecord("t", "k", null, new byte[0])).isInstanceOf(NullPointerException.class);
    }
}
