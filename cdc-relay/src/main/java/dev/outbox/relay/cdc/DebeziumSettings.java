package dev.outbox.relay.cdc;

import java.time.Duration;
import java.util.Properties;
import java.util.regex.Pattern;

import dev.outbox.contract.OutboxColumns;
import dev.outbox.contract.Topics;
import dev.outbox.relay.publish.PublishProperties;

/**
 * Builds the Debezium engine configuration: PostgreSQL connector on pgoutput, the existing insert-only
 * publication, a named slot, offsets in a Kafka topic, heartbeats, and the Outbox Event Router mapping the
 * outbox columns onto the message format (key = aggregate_id, value = payload, headers).
 */
final class DebeziumSettings {

    static final String HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat";
    static final String TOPIC_PREFIX = "outbox-relay";
    /** Where the connector puts logical decoding messages: the slot's horizon messages (see StreamHorizons). */
    static final String MESSAGE_TOPIC = TOPIC_PREFIX + ".message";
    /** The outbox table's change events, the only records the Outbox Event Router applies to. */
    static final String OUTBOX_TOPIC = TOPIC_PREFIX + ".public.outbox_messages";

    /** How often, and how far apart, the connector tries to take a slot another walsender still holds. */
    static final int SLOT_RETRIES = 30;

    static final Duration SLOT_RETRY_DELAY = Duration.ofSeconds(2);

    private DebeziumSettings() {}

    static Properties of(CdcProperties cdc, DatabaseProperties db, PublishProperties kafka) {
        Properties p = new Properties();
        p.setProperty("name", "outbox-relay");
        // Debezium's PostgreSQL connector, without the connection of its own that it opens only to check the settings
        p.setProperty("connector.class", RelayPostgresConnector.class.getName());
        p.setProperty("topic.prefix", TOPIC_PREFIX);
        p.setProperty("database.hostname", db.host());
        p.setProperty("database.port", String.valueOf(db.port()));
        p.setProperty("database.user", db.user());
        p.setProperty("database.password", db.password());
        p.setProperty("database.dbname", db.name());
        p.setProperty("database.tcpKeepAlive", "true");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", cdc.slotName());
        p.setProperty("slot.drop.on.stop", "false");
        // PostgreSQL 17+: a slot the primary synchronizes to standbys running sync_replication_slots, so that a
        // promoted
        // standby has it (the relay creates the slot itself, so that its horizon begins with it: StreamHorizons)
        p.setProperty("slot.failover", "true");
        // After a failover the synced slot is at or behind the offset: slot sync copies the primary's slot
        // periodically, and the primary's slot only moves after the offset was stored. Streaming then starts from
        // the offset (PostgreSQL begins at the later of the two), so nothing acknowledged is sent again. The offset is
        // valid on the promoted standby because the primary lists the standby's slot in synchronized_standby_slots:
        // the relay never receives WAL the standby has not flushed. Only when the slot is ahead of the offset (the
        // standby had no synced slot and the engine created a new one, or the offsets were lost) does the slot win:
        // the engine streams on from there instead of refusing to start, and the rows committed in between, which no
        // slot will ever stream again, are published by the safety net after its grace period.
        p.setProperty("offset.mismatch.strategy", "trust_slot");
        p.setProperty("slot.max.retries", String.valueOf(SLOT_RETRIES));
        p.setProperty("slot.retry.delay.ms", String.valueOf(SLOT_RETRY_DELAY.toMillis()));
        p.setProperty("publication.name", cdc.publication());
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("table.include.list", "public.outbox_messages");
        p.setProperty("snapshot.mode", "no_data");
        // pgoutput (PostgreSQL 14+) delivers logical decoding messages: the slot's own horizon messages, no one else's
        p.setProperty("message.prefix.include.list", Pattern.quote(StreamHorizons.prefix(cdc.slotName())));
        // no __debezium.context.* headers (connector name, task, run id) on every event: the message format has its
        // own six headers, and the relay would only build these on the streaming thread to drop them
        p.setProperty("extended.headers.enabled", "false");
        p.setProperty(
                "heartbeat.interval.ms", String.valueOf(cdc.heartbeatInterval().toMillis()));
        p.setProperty("topic.heartbeat.prefix", HEARTBEAT_TOPIC_PREFIX);
        p.setProperty("max.batch.size", "2048");
        p.setProperty("max.queue.size", "16384");
        // how long the engine sleeps when the WAL stream or its queue is empty: the floor of an idle relay's latency
        p.setProperty("poll.interval.ms", "5");
        p.setProperty("errors.max.retries", "-1");
        p.setProperty("errors.retry.delay.initial.ms", "500");
        p.setProperty("errors.retry.delay.max.ms", "10000");

        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
        p.setProperty("offset.storage.topic", cdc.offsetsTopic());
        p.setProperty("offset.storage.partitions", "1");
        p.setProperty("offset.storage.replication.factor", "1");
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("offset.flush.timeout.ms", "10000");
        p.setProperty("bootstrap.servers", kafka.bootstrapServers());
        // the offset store's admin, producer and consumer take the client settings from the top level
        kafka.client().forEach(p::setProperty);

        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        // the router routes the outbox's change events; heartbeats and horizon messages pass as they are
        p.setProperty("transforms.outbox.predicate", "outboxTable");
        p.setProperty("predicates", "outboxTable");
        p.setProperty("predicates.outboxTable.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
        p.setProperty("predicates.outboxTable.pattern", Pattern.quote(OUTBOX_TOPIC));
        // the message contract's mapping of outbox columns to key, value and headers, the polling relay's too
        p.setProperty("transforms.outbox.table.field.event.id", OutboxColumns.ID);
        p.setProperty("transforms.outbox.table.field.event.key", OutboxColumns.AGGREGATE_ID);
        p.setProperty("transforms.outbox.table.field.event.payload", OutboxColumns.PAYLOAD);
        p.setProperty("transforms.outbox.table.fields.additional.placement", OutboxColumns.routerHeaderPlacement());
        p.setProperty("transforms.outbox.route.by.field", OutboxColumns.AGGREGATE_TYPE);
        p.setProperty(
                "transforms.outbox.route.topic.replacement",
                Topics.forAggregate(kafka.topicPattern(), "${routedByValue}"));
        p.setProperty("transforms.outbox.route.tombstone.on.empty.payload", "false");
        p.setProperty("transforms.outbox.table.op.invalid.behavior", "warn");

        cdc.debezium().forEach(p::setProperty);
        return p;
    }
}
