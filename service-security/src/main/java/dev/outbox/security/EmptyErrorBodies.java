package dev.outbox.security;

import java.io.IOException;
import java.io.PrintWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Sends an error status nobody wrote a body for (an actuator endpoint answering an unknown health component with a
 * bare 404) to the error page, which renders it as a problem document. A body already written is left alone.
 */
final class EmptyErrorBodies extends OncePerRequestFilter {

    static FilterRegistrationBean<EmptyErrorBodies> registration() {
        FilterRegistrationBean<EmptyErrorBodies> registration = new FilterRegistrationBean<>(new EmptyErrorBodies());
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Tracking tracking = new Tracking(response);
        chain.doFilter(request, tracking);
        if (response.getStatus() >= 400 && !tracking.touched && !response.isCommitted()) {
            response.sendError(response.getStatus());
        }
    }

    private static final class Tracking extends HttpServletResponseWrapper {

        boolean touched;

        Tracking(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            touched = true;
            return super.getOutputStream();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            touched = true;
            return super.getWriter();
        }

        @Override
        public void sendError(int status) throws IOException {
            touched = true;
            super.sendError(status);
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            touched = true;
            super.sendError(status, message);
        }
    }
}
