package dev.outbox.contract;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Ids are RFC 9562 version 7: the time they were made in their first 48 bits, random bits after it. */
class TimeOrderedIdsTests {

    @Test
    void isAVersion7IdCarryingTheMillisecondItWasMadeIn() {
        long before = System.currentTimeMillis();
        UUID id = TimeOrderedIds.next();
        long after = System.currentTimeMillis();

        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2); // RFC 9562 (IETF) variant
        assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
        // the canonical text PostgreSQL's uuid type and the API's path parameters read
        assertThat(UUID.fromString(id.toString())).isEqualTo(id);
    }

    @Test
    void idsOfLaterMillisecondsSortAfterEarlierOnesAsPostgresComparesThem() throws InterruptedException {
        List<UUID> earlier = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            earlier.add(TimeOrderedIds.next());
        }
        assertThat(earlier).allMatch(id -> id.version() == 7);
        long last = earlier.get(earlier.size() - 1).getMostSignificantBits() >>> 16;
        long deadline = System.currentTimeMillis() + 1_000;
        while (System.currentTimeMillis() <= last && System.currentTimeMillis() < deadline) {
            Thread.sleep(1);
        }
        UUID later = TimeOrderedIds.next();

        // PostgreSQL orders uuids by their bytes, unsigned; so does this comparison of the canonical text
        for (UUID id : earlier) {
            assertThat(later.toString()).isGreaterThan(id.toString());
        }
    }

    @Test
    void idsMadeInTheSameMillisecondAreNotASequence() {
        Set<UUID> ids = new HashSet<>();
        int sameMillisecond = 0;
        UUID previous = TimeOrderedIds.next();
        for (int i = 0; i < 100_000; i++) {
            UUID id = TimeOrderedIds.next();
            ids.add(id);
            if (id.getMostSignificantBits() >>> 16 == previous.getMostSignificantBits() >>> 16) {
                sameMillisecond++;
                // a counter within the millisecond would make the next id guessable from this one: 62 random bits
                // differ by less than 2^32 once in about a billion pairs
                assertThat(Math.abs(id.getLeastSignificantBits() - previous.getLeastSignificantBits()))
                        .as("%s after %s", id, previous)
                        .isGreaterThan(1L << 32);
            }
            previous = id;
        }
        assertThat(ids).hasSize(100_000);
        assertThat(sameMillisecond).as("pairs made in the same millisecond").isPositive();
    }
}
