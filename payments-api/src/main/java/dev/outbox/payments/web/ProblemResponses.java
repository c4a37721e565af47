package dev.outbox.payments.web;

import java.net.URI;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Maps every refusal to an RFC 9457 problem response, once. Unexpected failures become a bare 500 whose body
 * says nothing about the cause; the cause is logged without the request payload.
 */
@RestControllerAdvice
final class ProblemResponses extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

    static URI type(String slug) {
        return URI.create("urn:problem-type:payments:" + slug);
    }

    static ProblemDetail problem(HttpStatus status, String slug, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(type(slug));
        problem.setTitle(title);
        return problem;
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<ProblemDetail> refused(ApiException e) {
        return ResponseEntity.status(e.status()).body(problem(e.status(), e.type(), e.title(), e.getMessage()));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        log.error("request failed: {}", e.getClass().getName(), e);
        HttpStatus status = HttpStatus.INTERNAL_SERVER_ERROR;
        return ResponseEntity.status(status).body(problem(status, "internal-error", "Internal error",
                "The request could not be completed; nothing was recorded. Retry with the same Idempotency-Key."));
    }
}
