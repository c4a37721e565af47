package dev.outbox.relay.outbox;

import org.springframework.http.HttpStatus;

/**
 * Why an operator's dead-letter request was refused, answered as a problem document of type
 * {@code urn:problem-type:relay:<slug>} by {@link RelayProblems}. Details are fixed sentences or numbers; they never
 * echo the request's text.
 */
final class DeadLetterRefusal extends RuntimeException {

    private final HttpStatus status;
    private final String slug;
    private final String title;

    private DeadLetterRefusal(HttpStatus status, String slug, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.slug = slug;
        this.title = title;
    }

    static DeadLetterRefusal invalid(String detail) {
        return new DeadLetterRefusal(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", detail);
    }

    static DeadLetterRefusal notFound() {
        return new DeadLetterRefusal(
                HttpStatus.NOT_FOUND, "not-found", "Not found", "There is no dead letter with that id.");
    }

    static DeadLetterRefusal setChanged(long deadLetters) {
        return new DeadLetterRefusal(
                HttpStatus.CONFLICT,
                "selection-changed",
                "The selection changed",
                "The selection takes another set than the dry run's (" + deadLetters
                        + " dead letters now): nothing was requeued. Run the dry run again.");
    }

    HttpStatus status() {
        return status;
    }

    String slug() {
        return slug;
    }

    String title() {
        return title;
    }
}
