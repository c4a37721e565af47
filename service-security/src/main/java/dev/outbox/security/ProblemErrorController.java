package dev.outbox.security;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The error page ({@code /error}, and the management port's own error path) as a problem document: whatever sent
 * the request there (a {@code sendError} of a filter, the container, an actuator endpoint's bare status) is
 * answered with the status it set, a stable type and no exception text. Replaces Boot's BasicErrorController.
 */
@RestController
final class ProblemErrorController implements ErrorController {

    @RequestMapping("${spring.web.error.path:/error}")
    ResponseEntity<Object> error(HttpServletRequest request) {
        return render(request);
    }

    static ResponseEntity<Object> render(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatusCode status =
                code instanceof Integer c && c >= 400 && c <= 599 ? HttpStatusCode.valueOf(c) : HttpStatus.NOT_FOUND;
        ProblemDetail problem = ProblemAdvice.problem(
                status, Problems.httpType(status), Problems.title(status), Problems.detail(status));
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        problem.setInstance(
                uri instanceof String path && path.startsWith("/")
                        ? java.net.URI.create(path.replaceAll("[^A-Za-z0-9/._~-]", "_"))
                        : null);
        return ProblemAdvice.respond(problem);
    }
}
