package io.debezium.metrics.stats;

import java.util.ArrayList;
import java.util.List;

import dev.outbox.relay.DebeziumCopies;
import io.debezium.metrics.event.LagBehindSourceEvent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay's copy of Debezium's MeasurementCollector: the one in use, pinned to what it copies, and inline. */
class MeasurementCollectorTests {

    /** SHA-256 of the class in debezium-connector-common 3.6.1.Final, the one the relay's copy follows. */
    static final String COPIED = "489f26cf197955b4ee299bce3a1fcf61403a1c8717abe398515dcb36252cae01";

    @Test
    void theRelaysCopyIsTheOneLoadedAndTheOriginalIsTheOneItCopies() throws Exception {
        DebeziumCopies.assertLoadedAndPinned(MeasurementCollector.class, "debezium-connector-common", COPIED);
    }

    @Test
    void aMeasurementIsAppliedOnTheSubmittingThreadBeforeAcceptReturns() {
        List<Thread> appliedOn = new ArrayList<>();
        LagBehindSourceMeasurement lag = new LagBehindSourceMeasurement(new LongDDSketchStatistics<>()) {
            @Override
            public synchronized void accept(LagBehindSourceEvent event) {
                appliedOn.add(Thread.currentThread());
                super.accept(event);
            }
        };
        MeasurementCollector<LagBehindSourceEvent> collector = new MeasurementCollector<>();
        collector.addMeasurement(LagBehindSourceEvent.class, lag);
        collector.start();

        // more than the original's queue of 1,000 holds: none is dropped, none waits for another thread
        for (long millis = 1; millis <= 5_000; millis++) {
            collector.accept(new LagBehindSourceEvent(millis));
        }

        assertThat(appliedOn).hasSize(5_000).containsOnly(Thread.currentThread());
        assertThat(lag.getLastValue()).isEqualTo(5_000L);
        assertThat(lag.getMinValue()).isEqualTo(1L);
        assertThat(lag.getMaxValue()).isEqualTo(5_000L);
        collector.stop();
    }
}
