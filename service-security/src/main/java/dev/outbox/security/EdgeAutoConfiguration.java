package dev.outbox.security;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderNotFoundException;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The edge every service shares, on Spring Security:
 * <ul>
 * <li>the operator chain (first): every request on the management port, every actuator endpoint, and the paths a
 * service adds ({@code admin.paths}); health open (status only for anonymous callers), everything else for the
 * admin token's holder;</li>
 * <li>a last chain that denies whatever no other chain claimed, so a path nobody thought of is closed;</li>
 * <li>the firewall's, MVC's, the error page's and Tomcat's refusals as problem documents.</li>
 * </ul>
 * A service adds its own chain for its API, between the two.
 */
@AutoConfiguration(
        before = {
            SecurityAutoConfiguration.class,
            ServletWebSecurityAutoConfiguration.class,
            UserDetailsServiceAutoConfiguration.class,
            ErrorMvcAutoConfiguration.class,
            WebMvcAutoConfiguration.class
        })
@EnableConfigurationProperties(AdminProperties.class)
public class EdgeAutoConfiguration {

    /** Operator chain first, then the services' chains, then {@link #denyEverythingElse}. */
    public static final int OPERATOR_ORDER = 1;

    public static final int SERVICE_ORDER = 50;

    @Bean
    @Order(OPERATOR_ORDER)
    SecurityFilterChain operatorChain(HttpSecurity http, AdminProperties admin) throws Exception {
        List<RequestMatcher> matchers = new ArrayList<>();
        matchers.add(new ManagementServerRequestMatcher());
        matchers.add(EndpointRequest.toAnyEndpoint());
        admin.paths().stream()
                .filter(p -> !p.isBlank())
                .map(PathPatternRequestMatcher::pathPattern)
                .forEach(matchers::add);
        BearerPrincipals principals = admin.principals();
        http.securityMatcher(new OrRequestMatcher(matchers)).authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.requestMatchers(EndpointRequest.to(HealthEndpoint.class))
                    .permitAll()
                    .anyRequest()
                    .hasRole("ADMIN");
        });
        return EdgeSecurity.bearer(
                        http,
                        "admin",
                        adminEntryPoint(principals),
                        new BearerAuthentication.Provider(principals, "ROLE_ADMIN"))
                .build();
    }

    /** 401 asking for the admin token; 403 "disabled" when this service has none configured. */
    public static AuthenticationEntryPoint adminEntryPoint(BearerPrincipals admin) {
        if (admin.isEmpty()) {
            return (request, response, e) -> Problems.write(
                    response,
                    403,
                    "urn:problem-type:admin:disabled",
                    "Admin endpoints disabled",
                    "No admin token is configured for this service.");
        }
        return Problems.unauthenticated("admin", "Send the admin token as 'Authorization: Bearer <token>'.");
    }

    /**
     * Whatever no chain claimed is not there: 404, with or without a credential, so a path nobody thought of is
     * closed and an unauthenticated caller learns nothing about which paths exist elsewhere.
     */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    SecurityFilterChain denyEverythingElse(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.anyRequest().denyAll();
        });
        AuthenticationEntryPoint notFound = (request, response, e) -> Problems.write(
                response,
                404,
                Problems.httpType(HttpStatus.NOT_FOUND).toString(),
                Problems.title(HttpStatus.NOT_FOUND),
                Problems.detail(HttpStatus.NOT_FOUND));
        return EdgeSecurity.stateless(http, "http", notFound).build();
    }

    /**
     * No global login: every chain authenticates with its own bearer providers. Without this bean Boot would create
     * an in-memory user with a generated password, a credential nobody asked for.
     */
    @Bean
    AuthenticationManager noGlobalAuthentication() {
        return authentication -> {
            throw new ProviderNotFoundException("no global authentication; each chain has its own");
        };
    }

    /**
     * No observation per security filter, authentication and authorization: each request keeps its HTTP server
     * observation (the {@code http.server.requests} timer and the span whose trace id goes into the outbox), but
     * Spring Security's own observations, a timer and a span per filter of the chain, took payments-api from 0.35 to
     * 0.66 ms of CPU per request under load (docs/benchmarks.md, payments-api against its own SQL).
     */
    @Bean
    @ConditionalOnMissingBean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    RequestRejectedHandler requestRejectedHandler() {
        return Problems.requestRejected();
    }

    @Bean
    @ConditionalOnMissingBean(ErrorController.class)
    ProblemErrorController problemErrorController() {
        return new ProblemErrorController();
    }

    @Bean
    @ConditionalOnMissingBean(ResponseEntityExceptionHandler.class)
    DefaultProblemAdvice problemAdvice() {
        return new DefaultProblemAdvice();
    }

    /** An actuator endpoint's bare error status (no body) goes to the error page, on a shared port too. */
    @Bean
    FilterRegistrationBean<EmptyErrorBodies> emptyErrorBodies() {
        return EmptyErrorBodies.registration();
    }

    @Bean
    ProblemValveCustomizer problemValveCustomizer() {
        return new ProblemValveCustomizer();
    }

    @org.springframework.web.bind.annotation.RestControllerAdvice
    static final class DefaultProblemAdvice extends ProblemAdvice {}
}
