package dev.outbox.relay.cdc;

import java.time.Duration;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The CDC relay's settings. Anything under {@code relay.cdc.debezium.*} is passed to the Debezium engine as
 * is and wins over the defaults built in {@link DebeziumSettings}.
 *
 * @param slotName          the logical replication slot (one active relay per slot)
 * @param publication       the insert-only publication created by the payments migrations
 * @param offsetsTopic      compacted Kafka topic holding the engine's offsets (survives restarts and redeploys)
 * @param heartbeatInterval how often the engine confirms progress so an idle slot does not retain WAL
 * @param standbyPoll       how often a standby instance tries to take over the slot
 * @param restartBackoff    pause before restarting a failed engine
 * @param maxInFlight       batches sent to Kafka and not yet all acknowledged, at most (the pipeline's depth)
 * @param horizonInterval   how often the leader emits its slot's horizon message while the stream is idle (every 100
 *                          ms while events flow): how soon what the stream delivered counts as published
 * @param debezium          Debezium engine settings passed as they are, over the relay's own
 *                          ({@code --relay.cdc.debezium.<key>=<value>})
 */
@ConfigurationProperties("relay.cdc")
public record CdcProperties(
        @DefaultValue("outbox_slot") String slotName,
        @DefaultValue("outbox_publication") String publication,
        @DefaultValue("outbox-relay.offsets") String offsetsTopic,
        @DefaultValue("10s") Duration heartbeatInterval,
        @DefaultValue("2s") Duration standbyPoll,
        @DefaultValue("5s") Duration restartBackoff,
        @DefaultValue("4") int maxInFlight,
        @DefaultValue("1s") Duration horizonInterval,
        @DefaultValue Map<String, String> debezium) {}
