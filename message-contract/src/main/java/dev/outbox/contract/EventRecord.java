package dev.outbox.contract;

import java.util.Arrays;
import java.util.Objects;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One event as a Kafka record: topic, key = the aggregate id (per-aggregate order), value = the JSON payload as is,
 * headers = the {@link EventEnvelope}. The one shape both relay modes publish and the consumer reads.
 */
public record EventRecord(String topic, String key, EventEnvelope envelope, byte[] payload) {

    public EventRecord {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(envelope, "envelope");
    }

    public ProducerRecord<String, byte[]> toProducerRecord() {
        return new ProducerRecord<>(topic, null, key, payload, envelope.toHeaders());
    }

    /** @throws InvalidEnvelope when the headers do not make an envelope */
    public static EventRecord of(ConsumerRecord<String, byte[]> record) {
        return new EventRecord(
                record.topic(), record.key(), EventEnvelope.fromHeaders(record.headers()), record.value());
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
