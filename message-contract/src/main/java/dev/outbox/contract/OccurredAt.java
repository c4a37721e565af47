package dev.outbox.contract;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The {@code occurred_at} header's text: an instant in UTC exactly as {@link Instant#toString()} writes it and
 * {@link Instant#parse} reads it, for example {@code 2026-12-03T16:00:00.123456Z}. Every event's header goes through
 * here, in the relay twice (the router's text read, the header written) and in the consumer once, so the common
 * shape (years 0000-9999, {@code Z}, no fraction or one of up to nine digits) is read and written directly:
 * {@code java.time}'s formatter machinery allocates a parse context per value, and compiling it made up a large
 * share of the relay's JIT work. Every other text goes to {@link Instant#parse}, with its exceptions.
 */
public final class OccurredAt {

    /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years {@code Instant.toString} writes with four digits. */
    private static final long FIRST_FOUR_DIGIT_SECOND = -62_167_219_200L;

    private static final long LAST_FOUR_DIGIT_SECOND = 253_402_300_799L;

    private OccurredAt() {}

    /** The same text as {@link Instant#toString()}. */
    public static String format(Instant instant) {
        String text = formatFourDigitYear(instant);
        return text != null ? text : instant.toString();
    }

    /** The common shape written directly (years 0000 to 9999); {@code null} for any other instant. */
    static String formatFourDigitYear(Instant instant) {
        long seconds = instant.getEpochSecond();
        if (seconds < FIRST_FOUR_DIGIT_SECOND || seconds > LAST_FOUR_DIGIT_SECOND) {
            return null;
        }
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400));
        int secondOfDay = (int) Math.floorMod(seconds, 86_400);
        int nano = instant.getNano();
        StringBuilder text = new StringBuilder(30);
        digits(text, date.getYear(), 4);
        digits(text.append('-'), date.getMonthValue(), 2);
        digits(text.append('-'), date.getDayOfMonth(), 2);
        digits(text.append('T'), secondOfDay / 3600, 2);
        digits(text.append(':'), secondOfDay / 60 % 60, 2);
        digits(text.append(':'), secondOfDay % 60, 2);
        if (nano > 0) {
            // as Instant.toString: the fewest groups of three digits that hold the nanoseconds
            text.append('.');
            if (nano % 1_000_000 == 0) {
                digits(text, nano / 1_000_000, 3);
            } else if (nano % 1_000 == 0) {
                digits(text, nano / 1_000, 6);
            } else {
                digits(text, nano, 9);
            }
        }
        return text.append('Z').toString();
    }

    /**
     * The same instant as {@link Instant#parse}, which also reads (and rejects) every text this does not.
     *
     * @throws java.time.format.DateTimeParseException when the text is not an ISO-8601 instant
     */
    public static Instant parse(CharSequence text) {
        Instant instant = parseCommonShape(text);
        return instant != null ? instant : Instant.parse(text);
    }

    /**
     * The common shape read directly ({@code yyyy-MM-ddTHH:mm:ss[.fraction]Z}, a valid date and time); {@code null}
     * for any other text, which {@link Instant#parse} then reads or refuses.
     */
    static Instant parseCommonShape(CharSequence text) {
        int length = text.length();
        if (length >= 20
                && length <= 30
                && length != 21
                && text.charAt(4) == '-'
                && text.charAt(7) == '-'
                && text.charAt(10) == 'T'
                && text.charAt(13) == ':'
                && text.charAt(16) == ':'
                && text.charAt(length - 1) == 'Z'
                && (length == 20 || text.charAt(19) == '.')) {
            int year = number(text, 0, 4);
            int month = number(text, 5, 7);
            int day = number(text, 8, 10);
            int hour = number(text, 11, 13);
            int minute = number(text, 14, 16);
            int second = number(text, 17, 19);
            int nano = 0;
            boolean valid = year >= 0 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0;
            if (valid && length > 20) {
                int fraction = number(text, 20, length - 1);
                valid = fraction >= 0;
                nano = fraction;
                for (int i = length - 1 - 20; i < 9; i++) {
                    nano *= 10;
                }
            }
            if (valid) {
                try {
                    return LocalDateTime.of(year, month, day, hour, minute, second, nano)
                            .toInstant(ZoneOffset.UTC);
                } catch (DateTimeException e) {
                    // out of range (a 25th hour, a leap second, February 30th): Instant.parse decides
                }
            }
        }
        return null;
    }

    /** {@code value} (below 10^width) in exactly {@code width} digits, zeros first. */
    private static void digits(StringBuilder text, int value, int width) {
        int divisor = 1;
        for (int i = 1; i < width; i++) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            text.append((char) ('0' + value / divisor % 10));
        }
    }

    /** The decimal number in {@code text[from, to)}, or -1 when a character is not an ASCII digit. */
    private static int number(CharSequence text, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
