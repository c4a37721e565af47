package dev.outbox.accounting.ledger;

import dev.outbox.accounting.AccountingProperties;
import dev.outbox.security.AdminProperties;
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
 * The consumer's API port: the probes open, {@code /ledger/**} for operators. The ledger is the accounting
 * department's book, not a merchant-facing API: its readers are the admin token's holder and named auditors
 * ({@code accounting.ledger-readers}); merchants read their payments from payments-api, which owns them and scopes
 * them per client. (The ledger holds no client id, so a per-client scope here would be a second copy of
 * payments-api's authorization over data this service does not own.)
 */
@Configuration(proxyBeanMethods = false)
class LedgerSecurity {

    @Bean
    @Order(EdgeAutoConfiguration.SERVICE_ORDER)
    SecurityFilterChain ledgerChain(HttpSecurity http, AdminProperties admin, AccountingProperties properties)
            throws Exception {
        BearerPrincipals readers = BearerPrincipals.parse("accounting.ledger-readers", properties.ledgerReaders());
        http.securityMatcher("/ledger/**", "/livez", "/readyz").authorizeHttpRequests(rules -> {
            EdgeSecurity.permitErrorDispatch(rules);
            rules.requestMatchers("/livez", "/readyz").permitAll().anyRequest().hasAnyRole("ADMIN", "LEDGER_READER");
        });
        return EdgeSecurity.bearer(
                        http,
                        "accounting",
                        Problems.unauthenticated(
                                "accounting",
                                "Send the admin or a ledger reader's token as " + "'Authorization: Bearer <token>'."),
                        new BearerAuthentication.Provider(admin.principals(), "ROLE_ADMIN"),
                        new BearerAuthentication.Provider(readers, "ROLE_LEDGER_READER"))
                .build();
    }
}
