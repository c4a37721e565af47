package io.debezium.connector.base;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

import io.debezium.annotation.SingleThreadAccess;
import io.debezium.annotation.ThreadSafe;
import io.debezium.config.CommonConnectorConfig;
import io.debezium.config.ConfigurationDefaults;
import io.debezium.pipeline.Sizeable;
import io.debezium.time.Temporals;
import io.debezium.util.LoggingContext;
import io.debezium.util.LoggingContext.PreviousContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.debezium.util.Loggings.maybeRedactSensitiveData;

/**
 * Debezium 3.6.1.Final's ChangeEventQueue (Apache License 2.0, Copyright Debezium Authors), the relay's copy: the one
 * change is in {@link #poll()}. The engine's polling thread calls it in a loop; with the relay's short poll interval
 * (5 ms, the floor of an idle relay's latency) the original spent up to a millisecond of every interval looping without
 * sleeping, about a sixth of a core on an idle relay and on every poll that does not fill a batch.
 *
 * <p>This class takes Debezium's place because it comes first on the class path (the relay's own classes precede its
 * libraries in the executable jar and in the tests). {@code ChangeEventQueueTests} pins it to the Debezium version it
 * copies: on an upgrade it fails until this copy is compared with the new original and its hash updated.
 *
 * <p>The original's description: a queue which serves as handover point between producer threads (e.g. MySQL's
 * binlog reader thread) and the Kafka Connect polling loop.
 * <p>
 * The queue is configurable in different aspects, e.g. its maximum size and the
 * time to sleep (block) between two subsequent poll calls. See the
 * {@link Builder} for the different options. The queue applies back-pressure
 * semantics, i.e. if it holds the maximum number of elements, subsequent calls
 * to {@link #enqueue(T)} will block until elements have been removed from
 * the queue.
 * <p>
 * If an exception occurs on the producer side, the producer should make that
 * exception known by calling {@link #producerException(RuntimeException)} before stopping its
 * operation. Upon the next call to {@link #poll()}, that exception will be
 * raised, causing Kafka Connect to stop the connector and mark it as
 * {@code FAILED}.
 *
 * @author Gunnar Morling
 *
 * @param <T>
 *            the type of events in this queue. Usually {@link Sizeable} is
 *            used, but in cases where additional metadata must be passed from
 *            producers to the consumer, a custom type extending source records
 *            may be used.
 */
@ThreadSafe
public class ChangeEventQueue<T extends Sizeable> implements ChangeEventQueueMetrics {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeEventQueue.class);

    private final Duration pollInterval;
    private final int maxBatchSize;
    private final int maxQueueSize;
    private final long maxQueueSizeInBytes;

    private final Lock lock;
    private final Condition isFull;
    private final Condition isNotFull;

    private final QueueProvider<T> queue;
    private final Supplier<PreviousContext> loggingContextSupplier;
    private final Queue<Long> sizeInBytesQueue;
    private long currentQueueSizeInBytes = 0;

    // Sometimes it is necessary to update the record before it is delivered depending on the content
    // of the following record. In that cases the easiest solution is to provide a single cell buffer
    // that will allow the modification of it during the explicit flush.
    // Typical example is MySQL connector when sometimes it is impossible to detect when the record
    // in process is the last one. In this case the snapshot flags are set during the explicit flush.
    @SingleThreadAccess("producer thread")
    private boolean buffering;

    private final AtomicReference<T> bufferedEvent = new AtomicReference<>();

    private volatile RuntimeException producerException;

    private ChangeEventQueue(
            Duration pollInterval,
            int maxQueueSize,
            int maxBatchSize,
            Supplier<LoggingContext.PreviousContext> loggingContextSupplier,
            long maxQueueSizeInBytes,
            boolean buffering,
            QueueProvider<T> queueProvider) {
        this.pollInterval = pollInterval;
        this.maxBatchSize = maxBatchSize;
        this.maxQueueSize = maxQueueSize;

        this.lock = new ReentrantLock();
        this.isFull = lock.newCondition();
        this.isNotFull = lock.newCondition();

        this.loggingContextSupplier = loggingContextSupplier;
        if (maxQueueSizeInBytes > 0) {
            this.sizeInBytesQueue = new ArrayDeque<>(maxQueueSize);
        } else {
            this.sizeInBytesQueue = new ArrayDeque<>(0);
        }

        this.maxQueueSizeInBytes = maxQueueSizeInBytes;
        this.buffering = buffering;
        this.queue = queueProvider;
    }

    public static class Builder<T extends Sizeable> {

        private Duration pollInterval;
        private int maxQueueSize;
        private int maxBatchSize;
        private Supplier<LoggingContext.PreviousContext> loggingContextSupplier;
        private long maxQueueSizeInBytes;
        private boolean buffering;
        private QueueProvider<T> queueProvider;

        public Builder<T> pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder<T> maxQueueSize(int maxQueueSize) {
            this.maxQueueSize = maxQueueSize;
            return this;
        }

        public Builder<T> maxBatchSize(int maxBatchSize) {
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        public Builder<T> loggingContextSupplier(Supplier<LoggingContext.PreviousContext> loggingContextSupplier) {
            this.loggingContextSupplier = loggingContextSupplier;
            return this;
        }

        public Builder<T> maxQueueSizeInBytes(long maxQueueSizeInBytes) {
            this.maxQueueSizeInBytes = maxQueueSizeInBytes;
            return this;
        }

        /**
         * Sets a custom {@link QueueProvider} implementation to be used by the {@link ChangeEventQueue}.
         * <p>
         * If not set, a default provider will be used internally based on the max queue size.
         * This allows for custom queue behavior or instrumentation if needed.
         *
         * @param queueProvider the queue provider to use; may be {@code null}, in which case a default will be used
         * @return this builder instance for method chaining
         */
        public ChangeEventQueue.Builder<T> queueProvider(QueueProvider<T> queueProvider) {
            this.queueProvider = queueProvider;
            return this;
        }

        public Builder<T> buffering() {
            this.buffering = true;
            return this;
        }

        public ChangeEventQueue<T> build() {
            if (queueProvider == null) {
                final DefaultQueueProvider<T> defaultProvider = new DefaultQueueProvider<>();
                defaultProvider.configure(
                        java.util.Map.of(CommonConnectorConfig.MAX_QUEUE_SIZE.name(), String.valueOf(maxQueueSize)));
                queueProvider = defaultProvider;
            }
            return new ChangeEventQueue<>(
                    pollInterval,
                    maxQueueSize,
                    maxBatchSize,
                    loggingContextSupplier,
                    maxQueueSizeInBytes,
                    buffering,
                    queueProvider);
        }
    }

    /**
     * Enqueues a record so that it can be obtained via {@link #poll()}. This method
     * will block if the queue is full.
     *
     * @param record
     *            the record to be enqueued
     * @throws InterruptedException
     *             if this thread has been interrupted
     */
    public void enqueue(T record) throws InterruptedException {
        if (record == null) {
            return;
        }

        // The calling thread has been interrupted, let's abort
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }

        if (buffering) {
            record = bufferedEvent.getAndSet(record);
            if (record == null) {
                // Can happen only for the first coming event
                return;
            }
        }

        doEnqueue(record);
    }

    /**
     * Applies a function to the event and the buffer and adds it to the queue. Buffer is emptied.
     *
     * @param recordModifier
     * @throws InterruptedException
     */
    public void flushBuffer(Function<T, T> recordModifier) throws InterruptedException {
        assert buffering : "Unsupported for queues with disabled buffering";
        T record = bufferedEvent.getAndSet(null);
        if (record != null) {
            doEnqueue(recordModifier.apply(record));
        }
    }

    /**
     * Disable buffering for the queue
     */
    public void disableBuffering() {
        assert bufferedEvent.get() == null : "Buffer must be flushed";
        buffering = false;
    }

    /**
     * Enable buffering for the queue
     */
    public void enableBuffering() {
        buffering = true;
    }

    protected void doEnqueue(T record) throws InterruptedException {
        if (LOGGER.isTraceEnabled()) {
            LOGGER.trace("Enqueuing source record '{}'", maybeRedactSensitiveData(record));
        }

        try {
            this.lock.lock();

            while (queue.size() >= maxQueueSize
                    || (maxQueueSizeInBytes > 0 && currentQueueSizeInBytes >= maxQueueSizeInBytes)) {
                // signal poll() to drain queue
                this.isFull.signalAll();
                // queue size or queue sizeInBytes threshold reached, so wait a bit
                this.isNotFull.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }

            queue.enqueue(record);
            // If we pass a positiveLong max.queue.size.in.bytes to enable handling queue size in bytes feature
            if (maxQueueSizeInBytes > 0) {
                long messageSize = record.objectSize();
                sizeInBytesQueue.add(messageSize);
                currentQueueSizeInBytes += messageSize;
            }

            // batch size or queue sizeInBytes threshold reached
            if (queue.size() >= maxBatchSize
                    || (maxQueueSizeInBytes > 0 && currentQueueSizeInBytes >= maxQueueSizeInBytes)) {
                // signal poll() to start draining queue and do not wait
                this.isFull.signalAll();
            }
        } finally {
            this.lock.unlock();
        }
    }

    /**
     * Returns the next batch of elements from this queue. May be empty in case no
     * elements have arrived in the maximum waiting time.
     * <p>
     * The relay's change: the wait is measured in nanoseconds. The original measures it with a millisecond clock and
     * ends it only once more than the interval has passed on that clock, so the last part of every wait, up to a
     * millisecond, found no time left to sleep and looped without sleeping. Nor does it log at debug level on every
     * turn: each such call runs Logback's filter chain, most of that loop's cost.
     *
     * @throws InterruptedException
     *             if this thread has been interrupted while waiting for more
     *             elements to arrive
     */
    public List<T> poll() throws InterruptedException {
        LoggingContext.PreviousContext previousContext = loggingContextSupplier.get();

        try {
            final long deadline = System.nanoTime()
                    + Temporals.min(pollInterval, ConfigurationDefaults.RETURN_CONTROL_INTERVAL)
                            .toNanos();
            try {
                this.lock.lock();
                List<T> records = new ArrayList<>(Math.min(maxBatchSize, queue.size()));
                throwProducerExceptionIfPresent();
                long remaining;
                while (drainRecords(records, maxBatchSize - records.size()) < maxBatchSize
                        && (maxQueueSizeInBytes == 0 || currentQueueSizeInBytes < maxQueueSizeInBytes)
                        && (remaining = deadline - System.nanoTime()) > 0) {
                    throwProducerExceptionIfPresent();
                    // signal doEnqueue() to add more records
                    this.isNotFull.signalAll();
                    // no records available or batch size not reached yet, so wait a bit
                    this.isFull.awaitNanos(remaining);
                }
                // signal doEnqueue() to add more records
                this.isNotFull.signalAll();
                return records;
            } finally {
                this.lock.unlock();
            }
        } finally {
            previousContext.restore();
        }
    }

    private long drainRecords(List<T> records, int maxElements) throws InterruptedException {
        int queueSize = queue.size();
        if (queueSize == 0) {
            return records.size();
        }
        int recordsToDrain = Math.min(queueSize, maxElements);
        T[] drainedRecords = (T[]) new Sizeable[recordsToDrain];
        for (int i = 0; i < recordsToDrain; i++) {
            T record = queue.poll();
            drainedRecords[i] = record;
        }
        if (maxQueueSizeInBytes > 0) {
            for (int i = 0; i < recordsToDrain; i++) {
                Long objectSize = sizeInBytesQueue.poll();
                currentQueueSizeInBytes -= (objectSize == null ? 0L : objectSize);
            }
        }
        records.addAll(Arrays.asList(drainedRecords));
        return records.size();
    }

    public void producerException(final RuntimeException producerException) {
        this.producerException = producerException;
    }

    private void throwProducerExceptionIfPresent() {
        if (producerException != null) {
            throw producerException;
        }
    }

    @Override
    public int totalCapacity() {
        return maxQueueSize;
    }

    @Override
    public int remainingCapacity() {
        return maxQueueSize - queue.size();
    }

    @Override
    public long maxQueueSizeInBytes() {
        return maxQueueSizeInBytes;
    }

    @Override
    public long currentQueueSizeInBytes() {
        return currentQueueSizeInBytes;
    }

    public boolean isBuffered() {
        return buffering;
    }

    public void close() {
        try {
            queue.close();
        } catch (Exception e) {
            LOGGER.warn("Failed to close queue provider", e);
        }
    }
}
