package dev.outbox.relay.publish;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import dev.outbox.contract.EventEnvelope;
import dev.outbox.contract.EventRecord;
import dev.outbox.contract.EventTypes;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How a publish round's outcomes are sorted: acknowledged, refused for good, or sent again in order. */
class KafkaPublisherTests {

    @Test
    void acknowledgedAndRejectedRecordsAreTakenUntilTheFirstRetriableFailure() {
        List<EventRecord> sent = records(6);
        List<Exception> outcomes = Arrays.asList(
                null,
                new RecordTooLargeException("big"),
                null,
                new TimeoutException("slow"),
                null,
                new RecordTooLargeException("big"));
        List<EventRecord> acknowledged = new ArrayList<>();
        List<KafkaPublisher.Rejected> rejected = new ArrayList<>();

        int retryFrom = KafkaPublisher.split(sent, outcomes, acknowledged, rejected);

        assertThat(retryFrom)
                .as("everything from the first retriable failure on is sent again")
                .isEqualTo(3);
        assertThat(acknowledged).containsExactly(sent.get(0), sent.get(2));
        assertThat(rejected).extracting(KafkaPublisher.Rejected::record).containsExactly(sent.get(1));
    }

    @Test
    void aRoundWithoutRetriableFailuresIsDone() {
        List<EventRecord> sent = records(3);
        List<EventRecord> acknowledged = new ArrayList<>();
        List<KafkaPublisher.Rejected> rejected = new ArrayList<>();

        assertThat(KafkaPublisher.split(
                        sent, Arrays.asList(null, new SerializationException("x"), null), acknowledged, rejected))
                .isEqualTo(-1);
        assertThat(acknowledged).hasSize(2);
        assertThat(rejected).hasSize(1);
    }

    @Test
    void onlyFailuresOfTheRecordItselfArePermanent() {
        assertThat(KafkaPublisher.isPermanent(new RecordTooLargeException("x"))).isTrue();
        assertThat(KafkaPublisher.isPermanent(new RecordBatchTooLargeException("x")))
                .isTrue();
        assertThat(KafkaPublisher.isPermanent(new InvalidRecordException("x"))).isTrue();
        assertThat(KafkaPublisher.isPermanent(new SerializationException("x"))).isTrue();
        assertThat(KafkaPublisher.isPermanent(new TimeoutException("x"))).isFalse();
        assertThat(KafkaPublisher.isPermanent(new NotLeaderOrFollowerException("x")))
                .isFalse();
        assertThat(KafkaPublisher.isPermanent(new IllegalStateException("x"))).isFalse();
    }

    private static List<EventRecord> records(int n) {
        List<EventRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(new EventRecord(
                    "t",
                    "k",
                    new EventEnvelope(UUID.randomUUID(), EventTypes.PAYMENT_CREATED, 1, 1, Instant.now(), null),
                    new byte[] {(byte) i}));
        }
        return records;
    }
}
