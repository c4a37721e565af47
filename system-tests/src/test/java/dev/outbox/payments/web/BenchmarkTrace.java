package dev.outbox.payments.web;

import io.micrometer.tracing.Tracer;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/** payments-api's trace context with no tracer, as the API runs with tracing off, for the benchmark's JDBC limit. */
public final class BenchmarkTrace {

    private BenchmarkTrace() {}

    public static TraceContext withoutTracer() {
        return new TraceContext(new StaticListableBeanFactory().getBeanProvider(Tracer.class));
    }
}
