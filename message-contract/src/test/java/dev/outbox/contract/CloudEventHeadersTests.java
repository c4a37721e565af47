package dev.outbox.contract;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every event is also a CloudEvent in Kafka's binary mode, read by the CloudEvents SDK's own Kafka reader; the
 * consumer's side refuses a record whose CloudEvents headers say something other than its envelope.
 */
class CloudEventHeadersTests {

    private static final UUID PAYMENT = UUID.fromString("01a24205-d4ba-73ee-934d-b9c83dead5a3");
    private static final EventEnvelope ENVELOPE = new EventEnvelope(
            UUID.fromString("01a24205-d4bb-7c1e-a4b2-1fd0e3e0c6f1"),
            EventTypes.PAYMENT_REFUNDED,
            1,
            2,
            Instant.parse("2026-12-06T02:50:11.123456Z"),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    private static final byte[] PAYLOAD = ("{\"paymentId\":\"" + PAYMENT
                    + "\",\"refundId\":\"01a24205-d4bb-7c1e-a4b2-1fd0e3e0c6f2\",\"amount\":\"5.00\",\"currency\":\"EUR\"}")
            .getBytes(StandardCharsets.UTF_8);
    private static final EventRecord RECORD =
            new EventRecord(Topics.PAYMENT_EVENTS, PAYMENT.toString(), ENVELOPE, PAYLOAD);

    @Test
    void theCloudEventsSdkReadsEveryRecordAsTheSameEvent() {
        ProducerRecord<String, byte[]> sent = RECORD.toProducerRecord();
        List<String> names = new ArrayList<>(MessageHeaders.ALL);
        names.addAll(CloudEventHeaders.ALL);
        assertThat(sent.headers().toArray()).extracting(Header::key).containsExactlyElementsOf(names);

        CloudEvent event = CloudEventsSdk.assertReadsAsTheEvent(sent.headers(), sent.key(), sent.value());
        assertThat(event.getTime()).isEqualTo(OffsetDateTime.parse("2026-12-06T02:50:11.123456Z"));
        assertThat(event.getDataSchema()).isEqualTo(URI.create("urn:payments-outbox:schema:payment:PaymentRefunded:1"));
        assertThat(event.getDataSchema().toString()).isEqualTo(EventSchemas.uri(EventTypes.PAYMENT_REFUNDED, 1));
    }

    /** The other way round: a CloudEvent the SDK writes in binary mode, beside the envelope, reads back equal. */
    @Test
    void aRecordTheSdkWroteReadsBackAsTheSameEventRecord() {
        CloudEvent event = CloudEventBuilder.v1()
                .withId(ENVELOPE.id().toString())
                .withSource(URI.create(CloudEventHeaders.PAYMENTS_API))
                .withType(EventTypes.PAYMENT_REFUNDED)
                .withTime(OffsetDateTime.parse("2026-12-06T03:50:11.123456+01:00"))
                .withSubject(PAYMENT.toString())
                .withDataSchema(URI.create(EventSchemas.uri(EventTypes.PAYMENT_REFUNDED, 1)))
                .withData("application/json", PAYLOAD)
                .build();
        ProducerRecord<String, byte[]> written = KafkaMessageFactory.createWriter(
                        Topics.PAYMENT_EVENTS, PAYMENT.toString())
                .writeBinary(event);
        ENVELOPE.toHeaders().forEach(h -> written.headers().add(h));

        assertThat(EventRecord.of(received(written))).isEqualTo(RECORD);
    }

    @Test
    void aRecordFromBeforeTheCloudEventsHeadersIsReadAsBefore() {
        ProducerRecord<String, byte[]> sent = RECORD.toProducerRecord();
        CloudEventHeaders.ALL.forEach(sent.headers()::remove);
        assertThat(EventRecord.of(received(sent))).isEqualTo(RECORD);
    }

    /** Each attribute that restates the envelope or the key, changed or missing: refused, naming the header only. */
    @Test
    void aCloudEventsHeaderThatDisagreesOrIsMissingIsRefusedByName() {
        String[][] changes = {
            {CloudEventHeaders.ID, "01a24205-d4bb-7c1e-a4b2-1fd0e3e0c6f9", "ce_id header disagrees with the id header"},
            {CloudEventHeaders.TYPE, "PaymentCreated", "ce_type header disagrees with the event_type header"},
            {CloudEventHeaders.TIME, "2026-12-06T02:50:11.123457Z", "ce_time header disagrees with the occurred_at"},
            {CloudEventHeaders.TIME, "in a minute", "ce_time header is not an RFC 3339 timestamp"},
            {CloudEventHeaders.SUBJECT, "01a24205-0000-7c1e-a4b2-1fd0e3e0c6f1", "ce_subject header disagrees with"},
            {
                CloudEventHeaders.DATASCHEMA,
                "urn:payments-outbox:schema:payment:PaymentRefunded:2",
                "ce_dataschema header disagrees with the event_type and schema_version"
            },
            {CloudEventHeaders.SPECVERSION, "0.3", "ce_specversion header is not 1.0"},
            {CloudEventHeaders.CONTENT_TYPE, "text/plain", "content-type header is not application/json"},
            {CloudEventHeaders.SOURCE, null, "missing ce_source header"},
            {CloudEventHeaders.ID, null, "missing ce_id header"},
            {CloudEventHeaders.SPECVERSION, null, "missing ce_specversion header"}
        };
        for (String[] change : changes) {
            ProducerRecord<String, byte[]> sent = RECORD.toProducerRecord();
            Headers headers = sent.headers();
            headers.remove(change[0]);
            if (change[1] != null) {
                headers.add(change[0], change[1].getBytes(StandardCharsets.UTF_8));
            }
            assertThatThrownBy(() -> EventRecord.of(received(sent)))
                    .as(change[0] + "=" + change[1])
                    .isInstanceOf(InvalidEnvelope.class)
                    .hasMessageStartingWith(change[2])
                    .hasMessageNotContaining(change[1] == null ? "\u0000" : change[1]);
        }
    }

    @Test
    void theSameInstantWithAnOffsetAndAJsonContentTypeWithACharsetAgree() {
        ProducerRecord<String, byte[]> sent = RECORD.toProducerRecord();
        replace(sent.headers(), CloudEventHeaders.TIME, "2026-12-06T03:50:11.123456+01:00");
        replace(sent.headers(), CloudEventHeaders.CONTENT_TYPE, "application/json; charset=utf-8");
        assertThat(EventRecord.of(received(sent))).isEqualTo(RECORD);
    }

    /** content-type alone does not make a CloudEvent; any ce_ header does, with or without content-type. */
    @Test
    void theCloudEventsHeadersAreCheckedWhenAnyCeHeaderIsThere() {
        ProducerRecord<String, byte[]> contentTypeOnly = RECORD.toProducerRecord();
        CloudEventHeaders.ALL.forEach(contentTypeOnly.headers()::remove);
        contentTypeOnly
                .headers()
                .add(CloudEventHeaders.CONTENT_TYPE, "application/json".getBytes(StandardCharsets.UTF_8));
        assertThat(EventRecord.of(received(contentTypeOnly))).isEqualTo(RECORD);

        ProducerRecord<String, byte[]> noContentType = RECORD.toProducerRecord();
        noContentType.headers().remove(CloudEventHeaders.CONTENT_TYPE);
        replace(noContentType.headers(), CloudEventHeaders.TYPE, EventTypes.PAYMENT_CREATED);
        assertThatThrownBy(() -> EventRecord.of(received(noContentType)))
                .isInstanceOf(InvalidEnvelope.class)
                .hasMessage("ce_type header disagrees with the event_type header");
    }

    /** A type or version the contract does not have yet (a newer producer) still gets its schema's URI. */
    @Test
    void everyTypeAndVersionGetsItsSchemasUri() {
        EventEnvelope next =
                new EventEnvelope(ENVELOPE.id(), EventTypes.PAYMENT_CREATED, 2, 1, ENVELOPE.occurredAt(), null);
        Header schema = new EventRecord(Topics.PAYMENT_EVENTS, PAYMENT.toString(), next, PAYLOAD)
                .toProducerRecord()
                .headers()
                .lastHeader(CloudEventHeaders.DATASCHEMA);
        assertThat(new String(schema.value(), StandardCharsets.UTF_8))
                .isEqualTo("urn:payments-outbox:schema:payment:PaymentCreated:2");
        EventEnvelope unknownType =
                new EventEnvelope(ENVELOPE.id(), "PaymentChargedBack", 1, 3, ENVELOPE.occurredAt(), null);
        Header unknown = new EventRecord(Topics.PAYMENT_EVENTS, PAYMENT.toString(), unknownType, PAYLOAD)
                .toProducerRecord()
                .headers()
                .lastHeader(CloudEventHeaders.DATASCHEMA);
        assertThat(new String(unknown.value(), StandardCharsets.UTF_8))
                .isEqualTo("urn:payments-outbox:schema:payment:PaymentChargedBack:1");
    }

    @Test
    void aRecordWithoutAKeyHasNoSubject() {
        ProducerRecord<String, byte[]> sent =
                new EventRecord(Topics.PAYMENT_EVENTS, null, ENVELOPE, PAYLOAD).toProducerRecord();
        assertThat(sent.headers().lastHeader(CloudEventHeaders.SUBJECT)).isNull();
        assertThat(KafkaMessageFactory.createReader(received(sent)).toEvent().getSubject())
                .isNull();
    }

    private static void replace(Headers headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private static ConsumerRecord<String, byte[]> received(ProducerRecord<String, byte[]> sent) {
        ConsumerRecord<String, byte[]> received = new ConsumerRecord<>(sent.topic(), 0, 7, sent.key(), sent.value());
        sent.headers().forEach(h -> received.headers().add(h));
        return received;
    }
}
