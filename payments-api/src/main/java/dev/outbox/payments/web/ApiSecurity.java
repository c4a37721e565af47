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
 * configured; the client id scopes payments and Idempotency-Keys), the probes open. The operator chain and the
 * closing deny-all chain come from service-security; paths are matched as Spring MVC routes them, so no spelling of
 * a path reaches a controller around its rule.
 */
@Configuration(proxyBeanMethods = false)
class ApiSecurity {

    @Bean
    @Order(EdgeAutoConfiguration.SERVICE_ORDER)
    SecurityFilterChain apiChain(HttpSecurity http, ApiProperties properties) throws Exception {
        BearerPrincipals clients = BearerPrincipals.parse("payments.api-keys", properties.apiKeys());
        http.securityMatcher("/payments/**", "/livez", "/readyz").authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.requestMatchers("/livez", "/readyz").permitAll().anyRequest().hasRole("CLIENT");
        });
        return EdgeSecurity.bearer(
                        http,
                        "payments",
                        Problems.unauthenticated("payments", "Send a valid API key as 'Authorization: Bearer <key>'."),
                        new BearerAuthentication.Provider(clients, "ROLE_CLIENT"))
                .build();
    }
}
