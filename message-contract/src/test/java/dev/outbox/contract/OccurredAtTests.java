package dev.outbox.contract;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** occurred_at's text is exactly java.time's: the same bytes out, the same instants and the same refusals in. */
class OccurredAtTests {

    @Test
    void formatsEveryInstantAsInstantToStringDoes() {
        for (Instant instant : instants()) {
            assertThat(OccurredAt.format(instant)).as(instant.toString()).isEqualTo(instant.toString());
        }
    }

    @Test
    void parsesWhatInstantParseParses() {
        for (Instant instant : instants()) {
            String text = instant.toString();
            assertThat(OccurredAt.parse(text)).as(text).isEqualTo(Instant.parse(text));
        }
        // fractions of every length, not only the groups of three Instant.toString writes, and other spellings
        for (String text : List.of(
                "2026-12-03T16:00:00.1Z",
                "2026-12-03T16:00:00.12Z",
                "2026-12-03T16:00:00.1234Z",
                "2026-12-03T16:00:00.12345Z",
                "2026-12-03T16:00:00.1234567Z",
                "2026-12-03T16:00:00.12345678Z",
                "2026-12-03T16:00:00.000000000Z",
                "2026-12-03t16:00:00z",
                "2026-12-03T17:00:00+01:00",
                "2024-02-29T23:59:59.999999999Z",
                "+12026-12-03T16:00:00Z",
                "0000-01-01T00:00:00Z",
                "2026-12-03T23:59:60Z",
                "2026-12-03T24:00:00Z",
                "2026-12-03T16:00:00.Z")) {
            assertThat(OccurredAt.parse(text)).as(text).isEqualTo(Instant.parse(text));
        }
    }

    @Test
    void refusesWhatInstantParseRefuses() {
        for (String text : List.of(
                "",
                "2026-12-03",
                "2026-12-03T16:00:00",
                "2026-12-03T16:00:00.1234567890Z",
                "2026-13-03T16:00:00Z",
                "2026-02-30T16:00:00Z",
                "2026-12-03T25:00:00Z",
                "2026-12-03T16:60:00Z",
                "2026-12-03T16:00:0xZ",
                "2026-12-03 16:00:00Z",
                "-026-12-03T16:00:00Z")) {
            assertThatThrownBy(() -> Instant.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
            assertThatThrownBy(() -> OccurredAt.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
        }
    }

    /**
     * The direct paths do the work they exist for: every four-digit year is written without java.time's formatter,
     * every common shape read without its parser, and only those (the rest goes to java.time, which the tests above
     * hold both paths to).
     */
    @Test
    void theCommonShapesTakeTheDirectPathsAndNothingElseDoes() {
        for (Instant instant : instants()) {
            boolean fourDigits = !instant.isBefore(Instant.parse("0000-01-01T00:00:00Z"))
                    && !instant.isAfter(Instant.parse("9999-12-31T23:59:59.999999999Z"));
            String text = OccurredAt.formatFourDigitYear(instant);
            assertThat(text).as(instant.toString()).isEqualTo(fourDigits ? instant.toString() : null);
            if (fourDigits) {
                assertThat(OccurredAt.parseCommonShape(text)).as(text).isEqualTo(instant);
            }
        }
        for (String text : List.of(
                "2026-12-03T16:00:00.1Z",
                "2026-12-03T16:00:00.12Z",
                "2026-12-03T16:00:00.1234Z",
                "2026-12-03T16:00:00.12345678Z",
                "2026-12-03T16:00:00.000000000Z",
                "2024-02-29T23:59:59.999999999Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59Z")) {
            assertThat(OccurredAt.parseCommonShape(text)).as(text).isEqualTo(Instant.parse(text));
        }
        for (String text : List.of(
                "2026-12-03t16:00:00z",
                "2026-12-03T17:00:00+01:00",
                "+12026-12-03T16:00:00Z",
                "2026-12-03T23:59:60Z",
                "2026-12-03T24:00:00Z",
                "2026-12-03T16:00:00.Z",
                "2026-12-03T16:00:00.1234567890Z",
                "2026-13-03T16:00:00Z",
                "2026-00-03T16:00:00Z",
                "2026-02-30T16:00:00Z",
                "2026-12-03T16:60:00Z",
                "2026-12-03T16:00:0xZ",
                "2026-12-03T16:00:/0Z",
                "2026-12-03T16:00:00.1:Z",
                "2026-12-03 16:00:00Z",
                "2026/12-03T16:00:00Z",
                "2026-12/03T16:00:00Z",
                "2026-12-03T16-00:00Z",
                "2026-12-03T16:00-00Z",
                "2026-12-03T16:00:00+",
                "2026-12-03T16:00:00,1Z",
                "-026-12-03T16:00:00Z",
                "2026-12-03T16:00:00")) {
            assertThat(OccurredAt.parseCommonShape(text)).as(text).isNull();
        }
    }

    /** Edges of the four-digit years, every fraction length Instant.toString writes, and 100,000 random instants. */
    private static List<Instant> instants() {
        List<Instant> instants = new ArrayList<>(List.of(
                Instant.EPOCH,
                Instant.ofEpochSecond(-1, 999_999_999),
                Instant.parse("0000-01-01T00:00:00Z"),
                Instant.parse("0000-01-01T00:00:00Z").minusNanos(1),
                Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Instant.parse("9999-12-31T23:59:59.999999999Z").plusNanos(1),
                Instant.parse("2024-02-29T12:34:56.100Z"),
                Instant.parse("2024-02-29T12:34:56.000100Z"),
                Instant.parse("2024-02-29T12:34:56.000000100Z"),
                Instant.MIN,
                Instant.MAX));
        SplittableRandom random = new SplittableRandom(15);
        for (int i = 0; i < 100_000; i++) {
            long second = random.nextLong(-70_000_000_000L, 260_000_000_000L);
            int nano = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            instants.add(Instant.ofEpochSecond(second, nano));
        }
        return instants;
    }
}
