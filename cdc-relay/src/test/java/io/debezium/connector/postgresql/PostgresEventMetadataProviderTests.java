package io.debezium.connector.postgresql;

import dev.outbox.relay.DebeziumCopies;
import io.debezium.relational.TableId;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay's copy of Debezium's PostgresEventMetadataProvider: the one in use, pinned to what it copies. */
class PostgresEventMetadataProviderTests {

    /** SHA-256 of the class in debezium-connector-postgres 3.6.1.Final, the one the relay's copy follows. */
    static final String COPIED = "52585dadbfd3e0521997492955ff6b8da868de7a4b48c117a8ff60f11075a49b";

    @Test
    void theRelaysCopyIsTheOneLoadedAndTheOriginalIsTheOneItCopies() throws Exception {
        DebeziumCopies.assertLoadedAndPinned(
                PostgresEventMetadataProvider.class, "debezium-connector-postgres", COPIED);
    }

    @Test
    void theSummaryIsThePositionWithoutTheKeyOrTheRow() {
        Schema source = SchemaBuilder.struct()
                .field(SourceInfo.LSN_KEY, Schema.OPTIONAL_INT64_SCHEMA)
                .field(SourceInfo.XMIN_KEY, Schema.OPTIONAL_INT64_SCHEMA)
                .field(SourceInfo.TXID_KEY, Schema.OPTIONAL_INT64_SCHEMA)
                .build();
        Schema row =
                SchemaBuilder.struct().field("payload", Schema.STRING_SCHEMA).build();
        Schema envelope = SchemaBuilder.struct()
                .field("source", source)
                .field("after", row)
                .build();
        Struct value = new Struct(envelope)
                .put(
                        "source",
                        new Struct(source).put(SourceInfo.LSN_KEY, 24_000_123L).put(SourceInfo.TXID_KEY, 77L))
                .put("after", new Struct(row).put("payload", "{\"card\":\"4111 1111 1111 1111\"}"));
        PostgresEventMetadataProvider provider = new PostgresEventMetadataProvider();
        TableId outbox = new TableId(null, "public", "outbox_messages");

        assertThat(provider.toSummaryString(outbox, null, "a-key", value)).isEqualTo("position: {lsn: 24000123}");
        assertThat(provider.getEventSourcePosition(outbox, null, "a-key", value))
                .containsExactlyEntriesOf(java.util.Map.of(SourceInfo.LSN_KEY, "24000123"));
        assertThat(provider.getTransactionId(outbox, null, "a-key", value)).isEqualTo("77");
        assertThat(provider.toSummaryString(outbox, null, "a-key", null)).isNull();
    }
}
