package dev.outbox.security;

import java.util.regex.Pattern;

/**
 * A dead letter's failure group: its sanitized reason ({@link ErrorText}) with what differs from one event to the next
 * (UUIDs, numbers) replaced by {@code <uuid>} and {@code <n>}, so that one cause reads the same for every event it
 * stopped. The relay computes the same in SQL (payments migration V7's {@code outbox_failure_shape}); a test of the
 * relay holds the two together.
 */
public final class FailureCause {

    private static final Pattern UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern NUMBER = Pattern.compile("[0-9]+");

    private FailureCause() {}

    /** The cause of {@code reason}; the empty text for none. */
    public static String of(String reason) {
        if (reason == null) {
            return "";
        }
        return NUMBER.matcher(UUID.matcher(reason).replaceAll("<uuid>")).replaceAll("<n>");
    }

    /** The part before the first colon: the exception's simple name, or {@code poison}. */
    public static String causeClass(String cause) {
        int colon = cause.indexOf(':');
        return colon < 0 ? cause : cause.substring(0, colon);
    }
}
