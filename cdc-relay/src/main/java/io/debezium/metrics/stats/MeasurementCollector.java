package io.debezium.metrics.stats;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.debezium.DebeziumException;
import io.debezium.metrics.event.MeasurementEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium 3.6.1.Final's MeasurementCollector (Apache License 2.0, Copyright Debezium Authors), the relay's copy: a
 * measurement is applied on the thread that submits it, not queued for a thread of its own. Debezium's streaming thread
 * submits one for every event it reads (its lag behind the source, for the connector's {@code MilliSecondsBehindSource}
 * attributes); the original put each into a queue of 1,000 for a publisher thread: a lock, a wake-up of that thread
 * and a queue node per event on the thread every event waits on, the publisher woken once per event, and a warning
 * logged for every event dropped while the queue was full (a drain fills it). The measurement's own {@code accept} is
 * synchronized and small (minimum, maximum, last value, sum and count, and with {@code statistics.metrics.enabled}, on
 * by default, a DDSketch), so applying it costs the streaming thread less than handing it over did; the relay-vs-Connect
 * benchmark's profiles of the warm drain show the handover's cost (docs/benchmarks.md).
 *
 * <p>This class takes Debezium's place because it comes first on the class path (the relay's own classes precede its
 * libraries in the executable jar and in the tests). {@code MeasurementCollectorTests} pins it to the Debezium version
 * it copies: on an upgrade it fails until this copy is compared with the new original and its hash updated.
 *
 * <p>The original's description: single point for submitting all kind of measurements.
 */
public class MeasurementCollector<T extends MeasurementEvent> implements Consumer<T> {
    private static final Logger LOGGER = LoggerFactory.getLogger(MeasurementCollector.class);

    private final Map<Class<T>, Measurement<T>> measurements = new ConcurrentHashMap<>();

    public MeasurementCollector() {}

    /** Applies the event to its measurement, if one is registered for its class, on the calling thread. */
    @Override
    public void accept(T measurementEvent) {
        Measurement<T> measurement = measurements.get(measurementEvent.getClass());
        if (measurement != null) {
            try {
                measurement.accept(measurementEvent);
            } catch (Exception e) {
                LOGGER.warn("Failed to add measurement value for measurement event {}", measurementEvent, e);
            }
        }
    }

    public void addMeasurement(Class<T> clazz, Measurement<T> measurement) {
        if (measurements.containsKey(clazz)) {
            throw new DebeziumException("Duplicate measurement event for measurement class " + clazz.getName());
        }
        measurements.put(clazz, measurement);
    }

    /** The original starts its publisher thread here; there is none. */
    public void start() {}

    /** The original clears its queue and stops its publisher thread here; there are none. */
    public void stop() {}

    /** The original drops the events still queued here; none are. */
    public void reset() {}
}
