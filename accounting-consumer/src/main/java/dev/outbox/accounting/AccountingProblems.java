package dev.outbox.accounting;

import java.net.URI;

import dev.outbox.security.ProblemAdvice;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The consumer's own refusals as RFC 9457 problem documents of type {@code urn:problem-type:accounting:*}; the HTTP
 * layer's (404, 405, 415, a malformed parameter or body, 500) come from {@link ProblemAdvice}.
 */
@RestControllerAdvice
final class AccountingProblems extends ProblemAdvice {

    @ExceptionHandler(OperatorRefusal.class)
    ResponseEntity<Object> refused(OperatorRefusal e) {
        return respond(
                problem(e.status(), URI.create("urn:problem-type:accounting:" + e.slug()), e.title(), e.getMessage()));
    }
}
