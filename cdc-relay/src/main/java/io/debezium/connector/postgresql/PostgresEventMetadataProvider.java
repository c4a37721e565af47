package io.debezium.connector.postgresql;

import java.time.Instant;
import java.util.Map;

import io.debezium.data.Envelope;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.time.Conversions;
import io.debezium.util.Collect;
import org.apache.kafka.connect.data.Struct;

/**
 * Debezium 3.6.1.Final's PostgresEventMetadataProvider, the relay's copy: the one change is {@link #toSummaryString}.
 * Debezium's streaming thread calls it for every event, for the connector's JMX attribute {@code LastEvent}; the
 * default formats the event's key and its whole row (before and after, so the outbox payload) as JSON, on the thread
 * every event waits on. Here it is the event's WAL position only: no payload reaches JMX, and no JSON is written per
 * event.
 *
 * <p>This class takes Debezium's place because it comes first on the class path (the relay's own classes precede its
 * libraries in the executable jar and in the tests). {@code PostgresEventMetadataProviderTests} pins it to the Debezium
 * version it copies: on an upgrade it fails until this copy is compared with the new original and its hash updated.
 */
class PostgresEventMetadataProvider implements EventMetadataProvider {

    @Override
    public Instant getEventTimestamp(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
        if (value == null) {
            return null;
        }
        final Struct sourceInfo = value.getStruct(Envelope.FieldName.SOURCE);
        if (source == null) {
            return null;
        }
        if (sourceInfo.schema().field(SourceInfo.TIMESTAMP_USEC_KEY) != null) {
            final Long timestamp = sourceInfo.getInt64(SourceInfo.TIMESTAMP_USEC_KEY);
            return timestamp == null ? null : Conversions.toInstantFromMicros(timestamp);
        }
        final Long timestamp = sourceInfo.getInt64(SourceInfo.TIMESTAMP_KEY);
        return timestamp == null ? null : Instant.ofEpochMilli(timestamp);
    }

    @Override
    public Map<String, String> getEventSourcePosition(
            DataCollectionId source, OffsetContext offset, Object key, Struct value) {
        if (value == null) {
            return null;
        }
        final Struct sourceInfo = value.getStruct(Envelope.FieldName.SOURCE);
        if (source == null) {
            return null;
        }
        final Long xmin = sourceInfo.getInt64(SourceInfo.XMIN_KEY);
        final Long lsn = sourceInfo.getInt64(SourceInfo.LSN_KEY);
        if (lsn == null) {
            return null;
        }

        Map<String, String> r = Collect.hashMapOf(SourceInfo.LSN_KEY, Long.toString(lsn));
        if (xmin != null) {
            r.put(SourceInfo.XMIN_KEY, Long.toString(xmin));
        }
        return r;
    }

    @Override
    public String getTransactionId(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
        if (value == null) {
            return null;
        }
        final Struct sourceInfo = value.getStruct(Envelope.FieldName.SOURCE);
        if (source == null) {
            return null;
        }
        Long txId = sourceInfo.getInt64(SourceInfo.TXID_KEY);
        if (txId == null) {
            return null;
        }
        return Long.toString(txId);
    }

    /** The event's position in the WAL, as Debezium's summary writes it, without the key and the row. */
    @Override
    public String toSummaryString(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
        if (value == null || source == null) {
            return null;
        }
        Struct sourceInfo = value.getStruct(Envelope.FieldName.SOURCE);
        Long lsn = sourceInfo == null ? null : sourceInfo.getInt64(SourceInfo.LSN_KEY);
        return lsn == null ? null : "position: {lsn: " + lsn + "}";
    }
}
