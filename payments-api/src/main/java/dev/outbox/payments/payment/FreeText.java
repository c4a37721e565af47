package dev.outbox.payments.payment;

/**
 * Free text a client may write (a payment's description): printable characters only. Control and format
 * characters (bidi overrides, zero-width marks, byte order marks), line and paragraph separators, private-use and
 * unassigned code points, and lone surrogates are refused, so a description cannot reorder or hide what an
 * operator reads, and the text stored is exactly the text answered.
 */
final class FreeText {

    private FreeText() {
    }

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
        return text;
    }

    static boolean printable(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                    Character.UNASSIGNED, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    /** At most a short, printable ASCII fragment of caller input, for an error message. */
    static String fragment(String text) {
        String clean = text == null ? "" : text.replaceAll("[^A-Za-z0-9_.\\[\\]-]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
