package dev.outbox.payments.web;

import dev.outbox.security.BearerAuthentication;
import dev.outbox.security.BearerPrincipals;
import dev.outbox.security.EdgeAutoConfiguration;
import dev.outbox.security.EdgeSecurity;
import dev.outbox.security.Problems;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The API port's chain: {@code /payments/**} for clients authenticated by their API key (only SHA-256 digests are
 * configured; the client id scopes payments and Idempotency-Keys), the probes and the OpenAPI document open. The operator chain and the
 * closing deny-all chain come from service-security; paths are matched as Spring MVC routes them, so no spelling of
 * a path reaches a controller around its rule.
 */
@Configuration(proxyBeanMethods = false)
class ApiSecurity {

    /**
     * The OpenAPI document, open like the probes: it describes the contract this repository publishes anyway
     * (README, docs/openapi) and holds no data, and a client or gateway reads it before it has a key. Only this
     * exact path: springdoc's other spellings (.yaml, groups) fall to the deny-all chain.
     */
    static final String API_DOCS = "/v3/api-docs";

    @Bean
    @Order(EdgeAutoConfiguration.SERVICE_ORDER)
    SecurityFilterChain apiChain(HttpSecurity http, ApiProperties properties) throws Exception {
        BearerPrincipals clients = BearerPrincipals.parse("payments.api-keys", properties.apiKeys());
        http.securityMatcher("/payments/**", "/livez", "/readyz", API_DOCS).authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.requestMatchers("/livez", "/readyz", API_DOCS)
                    .permitAll()
                    .anyRequest()
                    .hasRole("CLIENT");
        });
        return EdgeSecurity.bearer(
                        http,
                        "payments",
                        Problems.unauthenticated("payments", "Send a valid API key as 'Authorization: Bearer <key>'."),
                        new BearerAuthentication.Provider(clients, "ROLE_CLIENT"))
                .build();
    }
}
