package dev.outbox.payments.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates API clients by {@code Authorization: Bearer <api key>}. Only SHA-256 digests of the keys are
 * configured; the authenticated client id scopes payments and Idempotency-Keys.
 */
@Component
final class ApiKeyAuthentication extends OncePerRequestFilter {

    private final Map<String, byte[]> digestsByClient = new LinkedHashMap<>();

    ApiKeyAuthentication(ApiProperties properties) {
        for (String entry : properties.apiKeys().split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String[] parts = entry.trim().split("=", 2);
            if (parts.length != 2 || !parts[1].matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("payments.api-keys entries must be client=sha256hex");
            }
            digestsByClient.put(parts[0], HexFormat.of().parseHex(parts[1]));
        }
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/payments");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        String client = header != null && header.startsWith("Bearer ") ? clientFor(header.substring(7).trim()) : null;
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

    private String clientFor(String apiKey) {
        byte[] digest = sha256(apiKey);
        String match = null;
        for (Map.Entry<String, byte[]> e : digestsByClient.entrySet()) {
            if (MessageDigest.isEqual(digest, e.getValue())) {
                match = e.getKey();
            }
        }
        return match;
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
