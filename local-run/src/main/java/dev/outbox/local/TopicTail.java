package dev.outbox.local;

import java.nio.charset.StandardCharsets;

import dev.outbox.contract.Topics;
import dev.outbox.reconcile.TopicScan;
import org.apache.kafka.common.header.Header;

/**
 * A console consumer for the local run: prints every record of a topic from the beginning with its partition,
 * offset, key, headers and value, as the local run's Kafka admin ({@link LocalTools#kafka}). {@code tail [topic]
 * [bootstrap]}; Ctrl-C stops it.
 */
final class TopicTail {

    private TopicTail() {}

    static void main(String[] args) {
        String topic = args.length > 0 ? args[0] : Topics.PAYMENT_EVENTS;
        String bootstrap = args.length > 1 ? args[1] : "127.0.0.1:9092";
        TopicScan.follow(LocalTools.kafka(bootstrap), topic, r -> {
            StringBuilder headers = new StringBuilder();
            for (Header h : r.headers()) {
                headers.append(' ')
                        .append(h.key())
                        .append('=')
                        .append(h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
            }
            System.out.printf(
                    "%s-%d@%d key=%s%s%n  %s%n", r.topic(), r.partition(), r.offset(), r.key(), headers, r.value());
        });
    }
}
