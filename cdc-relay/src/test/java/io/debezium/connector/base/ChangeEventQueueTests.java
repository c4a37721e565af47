package io.debezium.connector.base;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLong;

import dev.outbox.relay.DebeziumCopies;
import io.debezium.pipeline.Sizeable;
import io.debezium.util.LoggingContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The relay's copy of Debezium's ChangeEventQueue: the one in use, pinned to what it copies, and its poll's wait. */
class ChangeEventQueueTests {

    /** SHA-256 of the class in debezium-connector-common 3.6.1.Final, the one the relay's copy follows. */
    static final String COPIED = "5c4c6852319353651880b36760ebb59414f865cd68af1e06dbd6be3807328807";

    /** An event of the queue: a number. */
    record Event(int n) implements Sizeable {
        @Override
        public long objectSize() {
            return 16;
        }
    }

    /** Debezium's in-memory queue, counting how often the change queue looks at its size: once per turn of its wait. */
    static final class CountingProvider implements QueueProvider<Event> {
        final Queue<Event> events = new ArrayDeque<>();
        final AtomicLong sizeCalls = new AtomicLong();

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public void configure(Map<String, ?> properties) {}

        @Override
        public void enqueue(Event event) {
            events.add(event);
        }

        @Override
        public Event poll() {
            return events.poll();
        }

        @Override
        public int size() {
            sizeCalls.incrementAndGet();
            return events.size();
        }
    }

    private static ChangeEventQueue<Event> queue(CountingProvider provider, int maxBatchSize) {
        return new ChangeEventQueue.Builder<Event>()
                .pollInterval(Duration.ofMillis(5))
                .maxQueueSize(100)
                .maxBatchSize(maxBatchSize)
                .loggingContextSupplier(() -> LoggingContext.forConnector("test", "test", "test"))
                .queueProvider(provider)
                .build();
    }

    @Test
    void theRelaysCopyIsTheOneLoadedAndTheOriginalIsTheOneItCopies() throws Exception {
        DebeziumCopies.assertLoadedAndPinned(ChangeEventQueue.class, "debezium-connector-common", COPIED);
    }

    @Test
    void anEmptyPollSleepsThroughItsIntervalInsteadOfLoopingAtItsEnd() throws Exception {
        CountingProvider provider = new CountingProvider();
        ChangeEventQueue<Event> queue = queue(provider, 10);
        int polls = 100;
        for (int i = 0; i < polls; i++) {
            assertThat(queue.poll()).isEmpty();
        }
        // a poll looks at the size to size its batch, before its one wait and after it: three times. Debezium's
        // original looked again on every turn of a loop that did not sleep for the last part of the interval, below a
        // millisecond on its clock: hundreds of times a poll on an idle machine
        assertThat(provider.sizeCalls.get())
                .as("size looked at in %d empty polls", polls)
                .isLessThanOrEqualTo(4L * polls);
    }

    @Test
    void aPollReturnsWhatWaitsUpToABatch() throws Exception {
        CountingProvider provider = new CountingProvider();
        ChangeEventQueue<Event> queue = queue(provider, 10);
        for (int i = 0; i < 13; i++) {
            queue.enqueue(new Event(i));
        }
        assertThat(queue.poll()).extracting(Event::n).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(queue.poll()).extracting(Event::n).containsExactly(10, 11, 12);
        assertThat(queue.remainingCapacity()).isEqualTo(100);
    }

    @Test
    void aPollRaisesWhatTheProducerFailedWith() {
        ChangeEventQueue<Event> queue = queue(new CountingProvider(), 10);
        queue.producerException(new IllegalStateException("the stream failed"));
        assertThatThrownBy(queue::poll)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the stream failed");
    }
}
