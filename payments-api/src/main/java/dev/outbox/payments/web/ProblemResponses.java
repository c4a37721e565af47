package dev.outbox.payments.web;

import java.net.URI;

import dev.outbox.payments.idempotency.IdempotencyConflict;
import dev.outbox.payments.payment.InvalidInput;
import dev.outbox.payments.payment.PaymentNotFound;
import dev.outbox.payments.payment.RefundExceedsPayment;
import dev.outbox.security.ProblemAdvice;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The API's refusals, mapped once to RFC 9457 problem documents of type {@code urn:problem-type:payments:*}; the
 * HTTP layer's own (404, 405, 415, 500, ...) come from {@link ProblemAdvice}.
 */
@RestControllerAdvice
final class ProblemResponses extends ProblemAdvice {

    static URI type(String slug) {
        return URI.create("urn:problem-type:payments:" + slug);
    }

    private static ResponseEntity<Object> refuse(HttpStatus status, String slug, String title, String detail) {
        return respond(problem(status, type(slug), title, detail));
    }

    /** The transaction rolled back as a whole, so the same request with the same key is safe to send again. */
    @Override
    protected ProblemDetail internalError() {
        return problem(
                HttpStatus.INTERNAL_SERVER_ERROR,
                type("internal-error"),
                "Internal error",
                "The request could not be completed; nothing was recorded. Retry with the same Idempotency-Key.");
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<Object> refused(ApiException e) {
        return respond(problem(e.status(), e.type(), e.title(), e.getMessage()));
    }

    @ExceptionHandler(InvalidInput.class)
    ResponseEntity<Object> invalid(InvalidInput e) {
        return refuse(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", e.getMessage());
    }

    @ExceptionHandler(PaymentNotFound.class)
    ResponseEntity<Object> notFound(PaymentNotFound e) {
        return refuse(HttpStatus.NOT_FOUND, "not-found", "Not found", e.getMessage());
    }

    @ExceptionHandler(RefundExceedsPayment.class)
    ResponseEntity<Object> refundExceeds(RefundExceedsPayment e) {
        return refuse(HttpStatus.CONFLICT, "refund-exceeds-payment", "Refund exceeds payment", e.getMessage());
    }

    @ExceptionHandler(IdempotencyConflict.class)
    ResponseEntity<Object> conflict(IdempotencyConflict e) {
        return switch (e.kind()) {
            case REUSED ->
                refuse(
                        HttpStatus.UNPROCESSABLE_CONTENT,
                        "idempotency-key-reused",
                        "Idempotency-Key reused",
                        e.getMessage());
            case IN_PROGRESS ->
                refuse(HttpStatus.CONFLICT, "idempotency-key-in-progress", "Request in progress", e.getMessage());
        };
    }
}
