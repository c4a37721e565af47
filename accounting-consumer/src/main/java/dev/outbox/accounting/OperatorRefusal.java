package dev.outbox.accounting;

import org.springframework.http.HttpStatus;

/**
 * Why an operator's request to the admin endpoints was refused, answered as a problem document of type
 * {@code urn:problem-type:accounting:<slug>} by {@link AccountingProblems}. Details are fixed sentences or numbers;
 * they never echo the request's text.
 */
public final class OperatorRefusal extends RuntimeException {

    private final HttpStatus status;
    private final String slug;
    private final String title;

    private OperatorRefusal(HttpStatus status, String slug, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.slug = slug;
        this.title = title;
    }

    public static OperatorRefusal invalid(String detail) {
        return new OperatorRefusal(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", detail);
    }

    public static OperatorRefusal notFound(String detail) {
        return new OperatorRefusal(HttpStatus.NOT_FOUND, "not-found", "Not found", detail);
    }

    public static OperatorRefusal conflict(String slug, String title, String detail) {
        return new OperatorRefusal(HttpStatus.CONFLICT, slug, title, detail);
    }

    public static OperatorRefusal deadLettersDisabled() {
        return new OperatorRefusal(
                HttpStatus.SERVICE_UNAVAILABLE,
                "dead-letters-disabled",
                "Dead-letter endpoints disabled",
                "The broker is secured and no replay principal is configured "
                        + "(ACCOUNTING_REPLAY_KAFKA_USERNAME / ACCOUNTING_REPLAY_KAFKA_PASSWORD).");
    }

    public static OperatorRefusal brokerUnavailable(String detail) {
        return new OperatorRefusal(HttpStatus.BAD_GATEWAY, "broker-unavailable", "Broker unavailable", detail);
    }

    public HttpStatus status() {
        return status;
    }

    public String slug() {
        return slug;
    }

    public String title() {
        return title;
    }
}
