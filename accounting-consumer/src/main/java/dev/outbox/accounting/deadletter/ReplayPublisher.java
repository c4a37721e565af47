package dev.outbox.accounting.deadletter;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.outbox.accounting.OperatorRefusal;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.stereotype.Component;

/**
 * Publishes replayed dead letters to the events topic as the replay principal: idempotent, {@code acks=all}, one
 * record at a time, each acknowledged before the next. Created on the first replay, so a consumer that never
 * replays never logs in as that principal.
 */
@Component
final class ReplayPublisher implements DisposableBean {

    private final KafkaProperties kafka;
    private final DeadLetterProperties properties;
    private KafkaProducer<String, byte[]> producer;

    ReplayPublisher(KafkaProperties kafka, DeadLetterProperties properties) {
        this.kafka = kafka;
        this.properties = properties;
    }

    /**
     * @return where the broker put the record
     * @throws OperatorRefusal (502) when the broker refused the record or did not acknowledge it in time; the record
     *         may still have been written (the inbox absorbs a second copy)
     */
    RecordMetadata publish(ProducerRecord<String, byte[]> record) {
        try {
            return producer().send(record).get(properties.sendTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw OperatorRefusal.brokerUnavailable(
                    "Kafka refused the replay (" + e.getCause().getClass().getSimpleName() + ").");
        } catch (TimeoutException | KafkaException e) {
            throw OperatorRefusal.brokerUnavailable(
                    "Kafka did not acknowledge the replay (" + e.getClass().getSimpleName() + ").");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw OperatorRefusal.brokerUnavailable("Interrupted while waiting for Kafka.");
        }
    }

    private synchronized KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            Map<String, Object> config = properties.asReplayPrincipal(kafka.buildProducerProperties());
            int timeout = (int) properties.sendTimeout().toMillis();
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            config.put(ProducerConfig.CLIENT_ID_CONFIG, "accounting-replay");
            config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout / 2);
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeout);
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
            producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    @Override
    public synchronized void destroy() {
        if (producer != null) {
            producer.close();
        }
    }
}
