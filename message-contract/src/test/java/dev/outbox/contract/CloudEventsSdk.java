package dev.outbox.contract;

import java.net.URI;
import java.time.OffsetDateTime;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.kafka.KafkaMessageFactory;
import org.apache.kafka.common.header.Headers;

import static org.assertj.core.api.Assertions.assertThat;

/** A record read by the CloudEvents SDK's Kafka module, a reader no one here wrote. */
public final class CloudEventsSdk {

    private CloudEventsSdk() {}

    /**
     * Reads a record in Kafka's binary mode and asserts the CloudEvent is the record's event: the envelope's id,
     * type, time and schema, the key as subject, payments-api as source, the value as JSON data.
     */
    public static CloudEvent assertReadsAsTheEvent(Headers headers, String key, byte[] value) {
        EventEnvelope envelope = EventEnvelope.fromHeaders(headers);
        CloudEvent event = KafkaMessageFactory.createReader(headers, value).toEvent();
        assertThat(event.getSpecVersion()).isEqualTo(SpecVersion.V1);
        assertThat(event.getId()).isEqualTo(envelope.id().toString());
        assertThat(event.getSource()).isEqualTo(URI.create("urn:payments-outbox:payments-api"));
        assertThat(event.getType()).isEqualTo(envelope.eventType());
        assertThat(event.getTime().toInstant()).isEqualTo(envelope.occurredAt());
        assertThat(event.getTime()).isEqualTo(OffsetDateTime.parse(OccurredAt.format(envelope.occurredAt())));
        assertThat(event.getSubject()).isEqualTo(key);
        assertThat(event.getDataSchema())
                .isEqualTo(URI.create(
                        "urn:payments-outbox:schema:payment:" + envelope.eventType() + ":" + envelope.schemaVersion()));
        assertThat(event.getDataContentType()).isEqualTo("application/json");
        assertThat(event.getData().toBytes()).isEqualTo(value);
        assertThat(event.getExtensionNames())
                .as("the envelope's own headers are not ce_ attributes")
                .isEmpty();
        return event;
    }
}
