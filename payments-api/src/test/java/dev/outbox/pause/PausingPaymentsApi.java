package dev.outbox.pause;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.outbox.payments.PaymentsApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * payments-api as deployed, plus one test bean (outside the application's scanned packages), for a child JVM that a test SIGKILLs: a {@code POST /payments}
 * that succeeded stops after its transaction committed and before a byte of its response left (the response is
 * held in a buffer), writes the file named by {@code PAUSE_MARKER}, and waits for the kill.
 */
public final class PausingPaymentsApi {

    private PausingPaymentsApi() {}

    public static void main(String[] args) {
        new SpringApplicationBuilder(PaymentsApplication.class, PauseAfterCommit.class).run(args);
    }

    @Configuration(proxyBeanMethods = false)
    static class PauseAfterCommit {

        @Bean
        FilterRegistrationBean<Filter> pauseAfterCommit() {
            Path marker = Path.of(System.getenv("PAUSE_MARKER"));
            Filter filter = (request, response, chain) -> {
                HttpServletRequest http = (HttpServletRequest) request;
                if (!"POST".equals(http.getMethod()) || !"/payments".equals(http.getRequestURI())) {
                    chain.doFilter(request, response);
                    return;
                }
                ContentCachingResponseWrapper held = new ContentCachingResponseWrapper((HttpServletResponse) response);
                chain.doFilter(request, held);
                if (held.getStatus() == 201) {
                    pause(marker);
                }
                held.copyBodyToResponse();
            };
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            return registration;
        }

        private static void pause(Path marker) throws IOException {
            Files.writeString(marker, "committed, response held\n");
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
