package dev.outbox.payments.payment;

/**
 * Free text a client may write (a payment's description): printable characters only. Control and format
 * characters (bidi overrides, zero-width marks, byte order marks), line and paragraph separators, private-use and
 * unassigned code points, and lone surrogates are refused, so a description cannot reorder or hide what an
 * operator reads, and the text stored is exactly the text answered. It must also show something: no leading or
 * trailing space, at least one visible character (blank-looking fillers do not count), and no pile of more than two
 * combining marks on one character.
 */
final class FreeText {

    private FreeText() {}

    static String check(String field, String text, int maxCodePoints) {
        if (text == null) {
            return null;
        }
        if (text.codePointCount(0, text.length()) > maxCodePoints) {
            throw new InvalidInput(field + " must be at most " + maxCodePoints + " characters.");
        }
        if (!text.codePoints().allMatch(FreeText::printable)) {
            throw new InvalidInput(field + " must be printable text: no control or format characters (bidi, "
                    + "zero-width), separators, private-use or unassigned characters, or lone surrogates.");
        }
        if (text.isEmpty()
                || Character.isWhitespace(text.codePointAt(0))
                || Character.isWhitespace(text.codePointBefore(text.length()))
                || Character.isSpaceChar(text.codePointAt(0))
                || Character.isSpaceChar(text.codePointBefore(text.length()))) {
            throw new InvalidInput(field + " must not be empty or start or end with a space.");
        }
        if (text.codePoints().noneMatch(FreeText::visible)) {
            throw new InvalidInput(field + " must contain a visible character.");
        }
        int marks = 0;
        for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
            marks = combining(text.codePointAt(i)) ? marks + 1 : 0;
            if (marks > 2) {
                throw new InvalidInput(field + " must not stack more than two combining marks on a character.");
            }
        }
        return text;
    }

    private static boolean combining(int codePoint) {
        int type = Character.getType(codePoint);
        return type == Character.NON_SPACING_MARK
                || type == Character.ENCLOSING_MARK
                || type == Character.COMBINING_SPACING_MARK;
    }

    /**
     * For a printable character (letters, digits, punctuation, symbols, spaces and marks are what remain): anything
     * but a space, a combining mark or one of Unicode's blank-looking fillers.
     */
    private static boolean visible(int codePoint) {
        return BLANK_LOOKING.indexOf(codePoint) < 0
                && !Character.isWhitespace(codePoint)
                && !Character.isSpaceChar(codePoint)
                && !combining(codePoint);
    }

    /** Hangul fillers, the blank braille pattern and the halfwidth Hangul filler: letters and symbols that show nothing. */
    private static final String BLANK_LOOKING = "\u115F\u1160\u3164\u2800\uFFA0";

    static boolean printable(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.PRIVATE_USE,
                    Character.UNASSIGNED,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    /** At most a short, printable ASCII fragment of caller input, for an error message. */
    static String fragment(String text) {
        String clean = text == null ? "" : text.replaceAll("[^A-Za-z0-9_.\\[\\]-]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
