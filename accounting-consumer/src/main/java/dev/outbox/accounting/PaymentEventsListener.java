package dev.outbox.accounting;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.outbox.accounting.events.EventParser;
import dev.outbox.accounting.events.PaymentEvent;
import dev.outbox.accounting.ledger.LedgerService;
import dev.outbox.contract.MessageHeaders;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Consumes payment events in batches. The fast path applies a whole batch in one database transaction, with a
 * handful of set-based statements ({@link LedgerService#applyBatch}) or, when the batch holds a version gap, event
 * by event; if anything in it fails, the batch is replayed one record per transaction so that the records before
 * the failing one commit, and the failing one is handed to the error handler (retry, or dead letter) by index.
 * The listener returns, and the container commits offsets, only after the database commit.
 */
@Component
final class PaymentEventsListener {

    private static final Logger log = LoggerFactory.getLogger(PaymentEventsListener.class);

    private final EventParser parser;
    private final LedgerService ledger;
    private final TransactionTemplate transaction;
    private final Tracer tracer;
    private final Propagator propagator;
    private final Timer sinceOccurred;
    private final Timer sincePublished;

    PaymentEventsListener(
            EventParser parser,
            LedgerService ledger,
            TransactionTemplate transaction,
            Tracer tracer,
            Propagator propagator,
            MeterRegistry meters) {
        this.parser = parser;
        this.ledger = ledger;
        this.transaction = transaction;
        this.tracer = tracer;
        this.propagator = propagator;
        this.sinceOccurred = Timer.builder("accounting_latency_since_occurred")
                .description("occurred_at (API commit) -> ledger applied")
                .publishPercentileHistogram()
                .register(meters);
        this.sincePublished = Timer.builder("accounting_latency_since_published")
                .description("Kafka record timestamp (relay publish) -> ledger applied")
                .publishPercentileHistogram()
                .register(meters);
    }

    @KafkaListener(id = "accounting", idIsGroup = false, topics = "${accounting.topic}", batch = "true")
    void onBatch(List<ConsumerRecord<String, byte[]>> records) {
        List<PaymentEvent> committed = new ArrayList<>(records.size());
        try {
            committed.addAll(transaction.execute(tx -> processAll(records)));
        } catch (RuntimeException batchFailure) {
            log.debug(
                    "batch of {} failed ({}); replaying it record by record",
                    records.size(),
                    batchFailure.getClass().getSimpleName());
            committed.clear();
            for (int i = 0; i < records.size(); i++) {
                ConsumerRecord<String, byte[]> record = records.get(i);
                try {
                    committed.add(transaction.execute(tx -> process(record)));
                } catch (RuntimeException e) {
                    recordLatencies(records.subList(0, i), committed);
                    throw new BatchListenerFailedException(
                            e.getClass().getSimpleName() + " at offset " + record.offset(), e, i);
                }
            }
        }
        recordLatencies(records, committed);
    }

    private void recordLatencies(List<ConsumerRecord<String, byte[]>> records, List<PaymentEvent> events) {
        Instant now = Instant.now();
        for (ConsumerRecord<String, byte[]> record : records) {
            sincePublished.record(Duration.ofMillis(Math.max(0, now.toEpochMilli() - record.timestamp())));
        }
        for (PaymentEvent event : events) {
            Duration d = Duration.between(event.envelope().occurredAt(), now);
            sinceOccurred.record(d.isNegative() ? Duration.ZERO : d);
        }
    }

    /** Parses and applies a batch inside the current transaction, each record in a span continuing its trace. */
    private List<PaymentEvent> processAll(List<ConsumerRecord<String, byte[]>> records) {
        List<Span> spans = new ArrayList<>(records.size());
        try {
            List<PaymentEvent> events = new ArrayList<>(records.size());
            List<String> traceIds = new ArrayList<>(records.size());
            for (ConsumerRecord<String, byte[]> record : records) {
                Span span = span(record);
                spans.add(span);
                events.add(parse(record));
                traceIds.add(span.context().traceId());
            }
            if (!ledger.applyBatch(events, traceIds)) {
                for (int i = 0; i < events.size(); i++) {
                    ledger.apply(events.get(i), traceIds.get(i));
                }
            }
            return events;
        } catch (RuntimeException e) {
            spans.forEach(span -> span.error(e));
            throw e;
        } finally {
            spans.forEach(Span::end);
        }
    }

    /** Parses and applies one record inside the current transaction, in a span continuing the producer's trace. */
    private PaymentEvent process(ConsumerRecord<String, byte[]> record) {
        Span span = span(record);
        try (Tracer.SpanInScope scope = tracer.withSpan(span)) {
            PaymentEvent event = parse(record);
            ledger.apply(event, span.context().traceId());
            return event;
        } catch (RuntimeException e) {
            span.error(e);
            throw e;
        } finally {
            span.end();
        }
    }

    private Span span(ConsumerRecord<String, byte[]> record) {
        Span span = header(record, MessageHeaders.TRACEPARENT) == null
                ? tracer.nextSpan().name("accounting apply").start()
                : propagator
                        .extract(record, (r, key) -> header(r, key))
                        .name("accounting apply")
                        .kind(Span.Kind.CONSUMER)
                        .start();
        return span.tag("messaging.kafka.offset", String.valueOf(record.offset()));
    }

    private PaymentEvent parse(ConsumerRecord<String, byte[]> record) {
        return parser.parse(record.key(), record.headers(), record.value());
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
