package dev.outbox.security;

import jakarta.servlet.DispatcherType;

import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.authentication.AuthenticationEntryPointFailureHandler;
import org.springframework.security.web.authentication.AuthenticationFilter;

/**
 * How every chain of the three services is built: stateless (no session, no cookie, no saved request, no CSRF
 * token since no browser session exists), authenticated by bearer tokens only, answering refusals as problem
 * documents, and letting error dispatches through so the error page can render them. Spring Security's default
 * headers stay on: {@code Cache-Control: no-store} among them, so no cache keeps a payment.
 */
public final class EdgeSecurity {

    private EdgeSecurity() {}

    /**
     * @param namespace  the problem-type namespace of this chain's 401 and 403 ({@code payments}, {@code admin})
     * @param entryPoint what an unauthenticated request is answered
     * @param providers  the token checks, tried in order
     */
    public static HttpSecurity bearer(
            HttpSecurity http,
            String namespace,
            AuthenticationEntryPoint entryPoint,
            BearerAuthentication.Provider... providers)
            throws Exception {
        AuthenticationManager manager = new ProviderManager(providers);
        AuthenticationFilter tokens = new AuthenticationFilter(manager, BearerAuthentication.converter());
        tokens.setSuccessHandler((request, response, authentication) -> {});
        tokens.setFailureHandler(new AuthenticationEntryPointFailureHandler(entryPoint));
        return stateless(http.addFilterBefore(tokens, AnonymousAuthenticationFilter.class), namespace, entryPoint);
    }

    /** A chain without any credential of its own (the last one, which only refuses). */
    public static HttpSecurity stateless(HttpSecurity http, String namespace, AuthenticationEntryPoint entryPoint)
            throws Exception {
        return http.csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(AbstractHttpConfigurer::disable)
                .securityContext(c -> c.requireExplicitSave(true))
                .formLogin(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .anonymous(a -> {})
                .exceptionHandling(
                        e -> e.authenticationEntryPoint(entryPoint).accessDeniedHandler(Problems.forbidden(namespace)));
    }

    /** The error page renders whatever status the request already has; it needs no credential of its own. */
    public static void permitErrorDispatch(
            org.springframework.security.config.annotation.web.configurers.AuthorizeHttpRequestsConfigurer<HttpSecurity>
                            .AuthorizationManagerRequestMatcherRegistry
                    rules) {
        rules.dispatcherTypeMatchers(DispatcherType.ERROR).permitAll();
    }
}
