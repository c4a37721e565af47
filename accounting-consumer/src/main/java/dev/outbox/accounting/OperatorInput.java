package dev.outbox.accounting;

import java.util.regex.Pattern;

/**
 * Checks on what an operator sends the admin endpoints. Whatever passes is safe to store and to log: printable,
 * one line, bounded. A refusal names the field, never echoes its value.
 */
public final class OperatorInput {

    private static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,63}");

    private OperatorInput() {}

    /** Required text: not blank, no leading or trailing space, at most {@code max} characters, printable. */
    public static String text(String value, String field, int max) {
        if (value == null || value.isBlank()) {
            throw OperatorRefusal.invalid(field + " is required.");
        }
        return optionalText(value, field, max);
    }

    /** Like {@link #text}, or {@code null}. */
    public static String optionalText(String value, String field, int max) {
        if (value == null) {
            return null;
        }
        if (value.isBlank() || !value.strip().equals(value) || value.length() > max) {
            throw OperatorRefusal.invalid(field + " must be 1 to " + max + " characters without surrounding spaces.");
        }
        if (!value.codePoints().allMatch(OperatorInput::printable)) {
            throw OperatorRefusal.invalid(field + " must be printable text on one line.");
        }
        return value;
    }

    public static String optionalEventType(String value) {
        if (value != null && !EVENT_TYPE.matcher(value).matches()) {
            throw OperatorRefusal.invalid("eventType must be an event type name.");
        }
        return value;
    }

    private static boolean printable(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR,
                    Character.PRIVATE_USE,
                    Character.SURROGATE,
                    Character.UNASSIGNED -> false;
            default -> true;
        };
    }
}
