package dev.outbox.payments.idempotency;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The request fingerprint an Idempotency-Key is bound to: equal parts, equal hash; nothing else collides. */
class FingerprintTests {

    @Test
    void equalPartsGiveEqualHashes() {
        assertThat(IdempotentOperations.fingerprint("POST /payments", "10.00", "EUR", null))
                .isEqualTo(IdempotentOperations.fingerprint("POST /payments", "10.00", "EUR", null))
                .hasSize(64);
    }

    @Test
    void partsCannotBeShiftedAcrossBoundariesOrTakenForAbsence() {
        String ab = IdempotentOperations.fingerprint("a", "bc");
        assertThat(ab).isNotEqualTo(IdempotentOperations.fingerprint("ab", "c"));
        assertThat(ab).isNotEqualTo(IdempotentOperations.fingerprint("abc"));
        assertThat(IdempotentOperations.fingerprint("x", null)).isNotEqualTo(IdempotentOperations.fingerprint("x", ""));
        assertThat(IdempotentOperations.fingerprint("POST /payments", "10.00", "EUR", "d"))
                .isNotEqualTo(IdempotentOperations.fingerprint("POST /payments", "10.00", "EUR", null));
    }

    /**
     * Fingerprints are stored with their keys, so the formula is part of the data: a change would turn every retry
     * of a key stored before an upgrade into a 422. The expected value was computed outside Java, from the formula as
     * written: for each part, its UTF-8 length, a colon, its bytes, then 1 (or 0 for an absent part).
     */
    @Test
    void theFormulaIsStableAcrossReleases() {
        assertThat(IdempotentOperations.fingerprint("POST /payments", "10.00", "EUR", null))
                .isEqualTo("2ed7ad28994e145ccbe62e7702c46aa7ca1aa7c66ed54488e480950536a6a7bc");
    }

    @Test
    void aPartCannotForgeTheSeparatorOrDifferOnlyInContent() {
        assertThat(IdempotentOperations.fingerprint("a\u0001b"))
                .isNotEqualTo(IdempotentOperations.fingerprint("a", "b"));
        assertThat(IdempotentOperations.fingerprint("10.00")).isNotEqualTo(IdempotentOperations.fingerprint("20.00"));
    }
}
