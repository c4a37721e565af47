package dev.outbox.payments.web;

import java.net.URI;

import dev.outbox.security.Problems;
import org.springframework.http.HttpStatus;

/**
 * A request the HTTP edge refuses on purpose (a body that is not one UTF-8 JSON object, a missing or repeated
 * Idempotency-Key). Each kind maps to one RFC 9457 problem type; the detail is written for the caller and never
 * carries SQL, stack traces or the request payload.
 */
public final class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final URI type;
    private final String title;

    public ApiException(HttpStatus status, URI type, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public static ApiException invalid(String detail) {
        return new ApiException(
                HttpStatus.BAD_REQUEST, ProblemResponses.type("invalid-request"), "Invalid request", detail);
    }

    public static ApiException unsupportedMediaType() {
        HttpStatus status = HttpStatus.UNSUPPORTED_MEDIA_TYPE;
        return new ApiException(status, Problems.httpType(status), Problems.title(status), Problems.detail(status));
    }

    public static ApiException tooLarge(int limit) {
        return new ApiException(
                HttpStatus.CONTENT_TOO_LARGE,
                ProblemResponses.type("payload-too-large"),
                "Payload too large",
                "The request body exceeds " + limit + " bytes.");
    }

    public HttpStatus status() {
        return status;
    }

    public URI type() {
        return type;
    }

    public String title() {
        return title;
    }
}
