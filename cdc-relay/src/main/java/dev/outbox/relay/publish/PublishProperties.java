package dev.outbox.relay.publish;

import java.time.Duration;
import java.util.Map;

import dev.outbox.contract.Topics;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where and how events reach Kafka; shared by both relay modes so that they publish the same message.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param topicPattern     topic per aggregate type; {@code {aggregateType}} is replaced by the row's aggregate_type
 * @param deliveryTimeout  how long the producer retries one send before the relay gives up on the round (the CDC
 *                         stream restarts from its last committed offset, a polling row is scheduled again)
 * @param client           Kafka client settings for authentication (security.protocol, sasl.*), applied to the
 *                         producer and to the CDC engine's offset store alike
 */
@ConfigurationProperties("relay.kafka")
public record PublishProperties(
        @DefaultValue("127.0.0.1:9092") String bootstrapServers,
        @DefaultValue(Topics.DEFAULT_PATTERN) String topicPattern,
        @DefaultValue("15s") Duration deliveryTimeout,
        @DefaultValue Map<String, String> client) {}
