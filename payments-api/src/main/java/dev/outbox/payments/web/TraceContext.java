package dev.outbox.payments.web;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.util.function.SingletonSupplier;

/**
 * The W3C {@code traceparent} of the current request's span, stored on the outbox row so that the relay and
 * the consumer continue the API request's trace. Correlation only: it is never an identity or a dedup key.
 */
@Component
public final class TraceContext {

    /** Resolved on first use, then kept: a bean lookup per request cost more than the rest of this class. */
    private final SingletonSupplier<Tracer> tracer;

    TraceContext(ObjectProvider<Tracer> tracer) {
        this.tracer = SingletonSupplier.of(tracer::getIfAvailable);
    }

    /** The current traceparent, or {@code null} when there is no current span. */
    public String traceparent() {
        Tracer t = tracer.get();
        Span span = t == null ? null : t.currentSpan();
        if (span == null) {
            return null;
        }
        var context = span.context();
        boolean sampled = Boolean.TRUE.equals(context.sampled());
        return "00-" + context.traceId() + "-" + context.spanId() + (sampled ? "-01" : "-00");
    }
}
