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
}
