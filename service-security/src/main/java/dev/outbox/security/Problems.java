package dev.outbox.security;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * RFC 9457 problem documents for every layer that refuses a request before a controller runs: the firewall, the
 * security filters, the error page and Tomcat itself. Types are stable URNs: {@code urn:problem-type:http:<status
 * name>} for what HTTP itself refuses ({@code http:not-found}, {@code http:bad-request}, ...), and a namespace per
 * credential ({@code payments:unauthenticated}, {@code admin:unauthenticated}). No body ever carries a class
 * name, a stack trace or the request's input.
 */
public final class Problems {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Problems() {}

    /** {@code urn:problem-type:http:not-found} for 404, and so on for every status. */
    public static URI httpType(HttpStatusCode status) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return URI.create("urn:problem-type:http:"
                + (known == null
                        ? String.valueOf(status.value())
                        : known.name().toLowerCase().replace('_', '-')));
    }

    public static String title(HttpStatusCode status) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "Error" : known.getReasonPhrase();
    }

    /** What Spring's own exceptions say, replaced by a fixed sentence per status that never echoes input. */
    public static String detail(HttpStatusCode status) {
        return switch (status.value()) {
            case 400 -> "The request is malformed.";
            case 401 -> "A valid credential is required.";
            case 403 -> "This credential may not do that.";
            case 404 -> "There is no such resource.";
            case 405 -> "This method is not allowed on this resource.";
            case 406 -> "This resource answers application/json or application/problem+json only.";
            case 413 -> "The request is too large.";
            case 414 -> "The request URI is too long.";
            case 415 -> "Send the body as application/json in UTF-8.";
            case 431 -> "The request headers are too large.";
            default -> status.is5xxServerError() ? "The request could not be completed." : title(status) + ".";
        };
    }

    public static void write(HttpServletResponse response, int status, String type, String title, String detail)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        JSON.writeValue(response.getOutputStream(), body);
    }

    /** 401 with {@code WWW-Authenticate: Bearer} and type {@code urn:problem-type:<namespace>:unauthenticated}. */
    public static AuthenticationEntryPoint unauthenticated(String namespace, String detail) {
        return (request, response, e) -> {
            response.setHeader("WWW-Authenticate", "Bearer");
            write(response, 401, "urn:problem-type:" + namespace + ":unauthenticated", "Unauthenticated", detail);
        };
    }

    /** 403 for an authenticated principal without the authority: {@code urn:problem-type:<namespace>:forbidden}. */
    public static AccessDeniedHandler forbidden(String namespace) {
        return (request, response, e) -> write(
                response,
                403,
                "urn:problem-type:" + namespace + ":forbidden",
                "Forbidden",
                "This credential may not do that.");
    }

    /** The firewall's refusals (path parameters, encoded separators, dot segments, ...): 400, same body always. */
    public static RequestRejectedHandler requestRejected() {
        return (request, response, e) -> write(
                response,
                400,
                "urn:problem-type:http:request-rejected",
                "Request rejected",
                "The request URL or its headers are not in normalized form.");
    }
}
