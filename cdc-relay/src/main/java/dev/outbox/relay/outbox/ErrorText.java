package dev.outbox.relay.outbox;

import java.util.regex.Pattern;

/**
 * Turns an exception into text safe to store in last_error and logs: the exception type and a bounded message
 * with anything that looks like a credential, a connection string or a JSON payload removed.
 */
public final class ErrorText {

    private static final int MAX = 300;
    private static final Pattern SECRETS = Pattern.compile(
            "(?i)(password|passwd|pwd|secret|token|api[_-]?key|authorization|bearer)\\s*[=:]?\\s*(?:(?:bearer|basic)\\s+)?\\S+");
    private static final Pattern URLS = Pattern.compile("(?i)[a-z][a-z0-9+.-]*://\\S+");
    private static final Pattern JSON = Pattern.compile("\\{.*}", Pattern.DOTALL);

    private ErrorText() {
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
