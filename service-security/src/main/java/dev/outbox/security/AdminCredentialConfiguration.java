package dev.outbox.security;

import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * Puts {@link AdminCredential} in front of the management endpoints wherever they are served: in the
 * management child context when {@code management.server.port} differs from the server's, in the main context
 * otherwise (a filter of the main context never sees the management port's requests).
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@EnableConfigurationProperties(AdminProperties.class)
class AdminCredentialConfiguration {

    @Bean
    FilterRegistrationBean<AdminCredential> adminCredential(AdminProperties admin,
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBase) {
        List<String> extra = admin.paths().stream().filter(p -> !p.isBlank()).toList();
        FilterRegistrationBean<AdminCredential> registration = new FilterRegistrationBean<>(
                new AdminCredential(admin.token(), actuatorBase, extra));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }
}
