package dev.outbox.contract;

import java.util.Arrays;
import java.util.Objects;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * One event as a Kafka record: topic, key = the aggregate id (per-aggregate order), value = the JSON payload as is,
 * headers = the {@link EventEnvelope}'s, then the {@link CloudEventHeaders} restating them. The one shape both relay
 * modes publish and the consumer reads.
 */
public record EventRecord(String topic, String key, EventEnvelope envelope, byte[] payload) {

    public EventRecord {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(envelope, "envelope");
    }

    public ProducerRecord<String, byte[]> toProducerRecord() {
        Headers headers = envelope.toHeaders();
        CloudEventHeaders.add(headers, envelope, key);
        return new ProducerRecord<>(topic, null, key, payload, headers);
    }

    /**
     * @throws InvalidEnvelope when the headers do not make an envelope or the CloudEvents headers disagree with it
     */
    public static EventRecord of(ConsumerRecord<String, byte[]> record) {
        EventEnvelope envelope = EventEnvelope.fromHeaders(record.headers());
        CloudEventHeaders.check(record.headers(), envelope, record.key());
        return new EventRecord(record.topic(), record.key(), envelope, record.value());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof EventRecord r
                && topic.equals(r.topic)
                && Objects.equals(key, r.key)
                && envelope.equals(r.envelope)
                && Arrays.equals(payload, r.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, key, envelope, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "EventRecord[" + topic + ", key=" + key + ", " + envelope + ", " + (payload == null ? 0 : payload.length)
                + " bytes]";
    }
}
