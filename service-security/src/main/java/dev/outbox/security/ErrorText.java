package dev.outbox.security;

import java.util.regex.Pattern;

/**
 * Turns an exception into text safe to store (the relay's last_error) and to log: the exception type and a bounded message
 * with anything that looks like a credential, a connection string or a JSON payload removed.
 */
public final class ErrorText {

    private static final int MAX = 300;
    private static final Pattern SECRETS = Pattern.compile(
            "(?i)(password|passwd|pwd|secret|token|api[_-]?key|authorization|bearer)\\s*[=:]?\\s*(?:(?:bearer|basic)\\s+)?\\S+");
    private static final Pattern URLS = Pattern.compile("(?i)[a-z][a-z0-9+.-]*://\\S+");
    private static final Pattern JSON = Pattern.compile("\\{.*}", Pattern.DOTALL);

    private ErrorText() {}

    /**
     * For a log line about an unexpected failure: each cause sanitized, outermost first, and where the outermost
     * one was thrown; never a message as raised (a driver's message may quote a row's values).
     */
    public static String chain(Throwable error) {
        StringBuilder text = new StringBuilder(sanitize(error));
        StackTraceElement[] frames = error.getStackTrace();
        if (frames.length > 0) {
            text.append(" at ").append(frames[0]);
        }
        int depth = 0;
        for (Throwable cause = error.getCause();
                cause != null && cause != error && depth < 5;
                cause = cause.getCause(), depth++) {
            text.append(" <- ").append(sanitize(cause));
        }
        return text.toString();
    }

    public static String sanitize(Throwable error) {
        String message = error.getMessage() == null ? "" : error.getMessage();
        message = JSON.matcher(message).replaceAll("{…}");
        message = URLS.matcher(message).replaceAll("<url>");
        message = SECRETS.matcher(message).replaceAll("$1=<redacted>");
        message = message.replaceAll("\\s+", " ").trim();
        String text = error.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
        return text.length() > MAX ? text.substring(0, MAX - 1) + "…" : text;
    }
}
