package dev.outbox.security;

import java.util.Set;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.web.error.ErrorPage;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.servlet.ConfigurableServletWebServerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Problem documents on a separate management port too. Its server is built by a child context that applies none
 * of the main context's server customizers and answers errors with its own JSON, so it gets: the Tomcat valve, an
 * error page of its own that renders problems, and a filter turning an actuator endpoint's bare error status (an
 * unknown health component: 404 with no body) into that error page.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
class ManagementProblemConfiguration {

    static final String ERROR_PATH = "/management-problem";

    @Bean
    ProblemValveCustomizer managementProblemValve() {
        return new ProblemValveCustomizer();
    }

    /** After Boot's own management error page customizer (order 10). */
    @Bean
    WebServerFactoryCustomizer<ConfigurableServletWebServerFactory> managementProblemErrorPage() {
        final class ErrorPages implements WebServerFactoryCustomizer<ConfigurableServletWebServerFactory>, Ordered {
            @Override
            public void customize(ConfigurableServletWebServerFactory factory) {
                factory.setErrorPages(Set.of(new ErrorPage(ERROR_PATH)));
            }

            @Override
            public int getOrder() {
                return 20;
            }
        }
        return new ErrorPages();
    }

    @Bean
    FilterRegistrationBean<EmptyErrorBodies> emptyErrorBodies() {
        return EmptyErrorBodies.registration();
    }

    @RestController
    static final class ManagementErrors {

        @RequestMapping(ERROR_PATH)
        ResponseEntity<Object> error(HttpServletRequest request) {
            return ProblemErrorController.render(request);
        }
    }
}
