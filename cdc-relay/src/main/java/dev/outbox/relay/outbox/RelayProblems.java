package dev.outbox.relay.outbox;

import java.net.URI;

import dev.outbox.security.ProblemAdvice;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The relay's own refusals as RFC 9457 problem documents of type {@code urn:problem-type:relay:*}; the HTTP layer's
 * (404, 405, a malformed parameter, 500) come from {@link ProblemAdvice}.
 */
@RestControllerAdvice
final class RelayProblems extends ProblemAdvice {

    @ExceptionHandler(DeadLetterRefusal.class)
    ResponseEntity<Object> refused(DeadLetterRefusal e) {
        return respond(
                problem(e.status(), URI.create("urn:problem-type:relay:" + e.slug()), e.title(), e.getMessage()));
    }
}
