package dev.outbox.security;

import java.io.IOException;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Requires the admin bearer token on the operator's endpoints: every actuator endpoint except health (which
 * probes and load balancers must reach without a secret) and any extra path prefix a service declares (the
 * relay's /admin). Without a configured token those endpoints answer 403: disabled, never open.
 */
public final class AdminCredential extends OncePerRequestFilter {

    private final BearerDigest token;
    private final String actuatorBase;
    private final List<String> extraPrefixes;

    /**
     * @param token         the admin token's digest, {@code null} to disable the protected endpoints
     * @param actuatorBase  the actuator base path ({@code /actuator}; empty when it is the root)
     * @param extraPrefixes further path prefixes to protect, such as {@code /admin/}
     */
    public AdminCredential(BearerDigest token, String actuatorBase, List<String> extraPrefixes) {
        this.token = token;
        this.actuatorBase = actuatorBase.endsWith("/") ? actuatorBase.substring(0, actuatorBase.length() - 1)
                : actuatorBase;
        this.extraPrefixes = List.copyOf(extraPrefixes);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !isProtected(request.getRequestURI());
    }

    boolean isProtected(String path) {
        for (String prefix : extraPrefixes) {
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        if (!actuatorBase.isEmpty() && !path.equals(actuatorBase) && !path.startsWith(actuatorBase + "/")) {
            return false;
        }
        String endpoint = path.substring(actuatorBase.length());
        return !(endpoint.equals("/health") || endpoint.startsWith("/health/"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (token != null && token.matches(BearerDigest.tokenOf(request.getHeader("Authorization")))) {
            chain.doFilter(request, response);
            return;
        }
        boolean disabled = token == null;
        response.setStatus(disabled ? HttpStatus.FORBIDDEN.value() : HttpStatus.UNAUTHORIZED.value());
        if (!disabled) {
            response.setHeader("WWW-Authenticate", "Bearer");
        }
        response.setContentType("application/problem+json");
        response.getWriter().write(disabled
                ? """
                  {"type":"urn:problem-type:admin:disabled","title":"Admin endpoints disabled","status":403,\
                  "detail":"No admin token is configured for this service."}"""
                : """
                  {"type":"urn:problem-type:admin:unauthenticated","title":"Unauthenticated","status":401,\
                  "detail":"Send the admin token as 'Authorization: Bearer <token>'."}""");
    }
}
