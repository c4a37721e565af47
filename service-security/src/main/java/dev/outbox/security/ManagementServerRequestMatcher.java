package dev.outbox.security;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.context.support.WebApplicationContextUtils;

/**
 * Every request that arrived on the separate management server (the child context whose server namespace is
 * "management"), whatever its path: the port decides, not the spelling of the URL. Never matches when the
 * management endpoints share the main port.
 */
final class ManagementServerRequestMatcher implements RequestMatcher {

    @Override
    public boolean matches(HttpServletRequest request) {
        WebApplicationContext context =
                WebApplicationContextUtils.getWebApplicationContext(request.getServletContext());
        return WebServerApplicationContext.hasServerNamespace(context, "management");
    }

    @Override
    public String toString() {
        return "ManagementServer";
    }
}
