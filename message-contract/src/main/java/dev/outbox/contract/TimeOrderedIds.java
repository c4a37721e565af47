package dev.outbox.contract;

import java.util.UUID;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.NoArgGenerator;

/**
 * New ids for what PostgreSQL indexes and Kafka carries: payments, refunds and events (the message id, the outbox
 * row's primary key). UUID version 7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, 74 of the rest
 * are drawn from {@link java.security.SecureRandom} for each id, so an id cannot be guessed from another one made in
 * the same millisecond. Ids made close in time sort close together: an insert lands on the primary key's newest
 * pages, and the relay's published_at marks, which look up the ids of one stretch of the stream, read a few
 * neighbouring index pages instead of pages spread over the whole primary key.
 */
public final class TimeOrderedIds {

    private static final NoArgGenerator GENERATOR = Generators.timeBasedEpochRandomGenerator();

    private TimeOrderedIds() {}

    public static UUID next() {
        return GENERATOR.generate();
    }
}
