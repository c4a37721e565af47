package dev.outbox.payments.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.outbox.security.BearerDigest;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates API clients by {@code Authorization: Bearer <api key>}. Only SHA-256 digests of the keys are
 * configured; the authenticated client id scopes payments and Idempotency-Keys.
 */
@Component
final class ApiKeyAuthentication extends OncePerRequestFilter {

    private final Map<String, BearerDigest> digestsByClient = new LinkedHashMap<>();

    ApiKeyAuthentication(ApiProperties properties) {
        for (String entry : properties.apiKeys().split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String[] parts = entry.trim().split("=", 2);
            if (parts.length != 2 || !parts[1].matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("payments.api-keys entries must be client=sha256hex");
            }
            digestsByClient.put(parts[0], BearerDigest.ofHex(parts[1]));
        }
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/payments");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String apiKey = BearerDigest.tokenOf(request.getHeader("Authorization"));
        String client = apiKey == null ? null : clientFor(apiKey);
        if (client == null) {
            response.setStatus(HttpStatus.UNAUTHORIZED.value());
            response.setHeader("WWW-Authenticate", "Bearer");
            response.setContentType("application/problem+json");
            response.getWriter().write("""
                    {"type":"urn:problem-type:payments:unauthenticated","title":"Unauthenticated","status":401,\
                    "detail":"Send a valid API key as 'Authorization: Bearer <key>'."}""");
            return;
        }
        request.setAttribute(ClientId.ATTRIBUTE, client);
        chain.doFilter(request, response);
    }

    /** Checks every client's digest, so the time taken does not tell which client a key is close to. */
    private String clientFor(String apiKey) {
        BearerDigest presented = BearerDigest.ofToken(apiKey);
        String match = null;
        for (Map.Entry<String, BearerDigest> e : digestsByClient.entrySet()) {
            if (e.getValue().sameAs(presented)) {
                match = e.getKey();
            }
        }
        return match;
    }
}
