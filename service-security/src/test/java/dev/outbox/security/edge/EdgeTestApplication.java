package dev.outbox.security.edge;

import java.security.Principal;

import dev.outbox.local.LocalCredentials;
import dev.outbox.security.BearerAuthentication;
import dev.outbox.security.BearerPrincipals;
import dev.outbox.security.EdgeAutoConfiguration;
import dev.outbox.security.EdgeSecurity;
import dev.outbox.security.Problems;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A service shaped like ours: an API chain for clients, an operator path, actuator endpoints. */
@SpringBootApplication
class EdgeTestApplication {

    static final String CLIENT_KEY = "test-client-key";
    static final String ADMIN_TOKEN = LocalCredentials.ADMIN_TOKEN;

    @Bean
    @Order(EdgeAutoConfiguration.SERVICE_ORDER)
    SecurityFilterChain apiChain(HttpSecurity http) throws Exception {
        http.securityMatcher(PathPatternRequestMatcher.pathPattern("/api/**")).authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.anyRequest().hasRole("CLIENT");
        });
        return EdgeSecurity.bearer(
                        http,
                        "payments",
                        Problems.unauthenticated("payments", "Send an API key."),
                        new BearerAuthentication.Provider(
                                BearerPrincipals.parse(
                                        "keys",
                                        "acme="
                                                + java.util.HexFormat.of()
                                                        .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                                                .digest(CLIENT_KEY.getBytes()))),
                                "ROLE_CLIENT"))
                .build();
    }

    @RestController
    static class Endpoints {

        static final java.util.concurrent.atomic.AtomicInteger requeued =
                new java.util.concurrent.atomic.AtomicInteger();

        @GetMapping("/api/whoami")
        String whoami(Principal principal) {
            return "{\"client\":\"" + principal.getName() + "\"}";
        }

        @GetMapping("/admin/things")
        String things() {
            return "{\"things\":[]}";
        }

        @PostMapping("/admin/things/requeue")
        String requeue() {
            return "{\"requeued\":" + requeued.incrementAndGet() + "}";
        }
    }
}
