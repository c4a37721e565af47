package dev.outbox.security;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The MVC layer's problem documents: Spring's own exceptions (404, 405, 406, 415, a wrong-type parameter, ...)
 * get a stable {@code urn:problem-type:http:*} type and a fixed detail that never names a class or echoes input;
 * anything unexpected is a 500 logged once, as sanitized text. Each service's advice extends this one and adds
 * its domain refusals; a service without any gets this one as is.
 */
public class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

    public static ProblemDetail problem(HttpStatusCode status, java.net.URI type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(type);
        problem.setTitle(title);
        return problem;
    }

    public static ResponseEntity<Object> respond(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    @Override
    protected ResponseEntity<Object> createResponseEntity(
            Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        ProblemDetail problem =
                problem(status, Problems.httpType(status), Problems.title(status), Problems.detail(status));
        return super.createResponseEntity(problem, headers, status, request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception e) {
        log.error("request failed: {}", ErrorText.chain(e));
        return respond(internalError());
    }

    /** What an unexpected failure is answered; a service may say more about what the caller should do. */
    protected ProblemDetail internalError() {
        HttpStatus status = HttpStatus.INTERNAL_SERVER_ERROR;
        return problem(
                status, Problems.httpType(status), Problems.title(status), "The request could not be completed.");
    }
}
