package dev.outbox.payments.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.stereotype.Component;

/** Reads a request body without ever holding more than the configured limit in memory. */
@Component
public final class RequestBodies {

    private final int limit;

    RequestBodies(ApiProperties properties) {
        this.limit = properties.maxBodyBytes();
    }

    public byte[] read(HttpServletRequest request) {
        if (request.getContentLengthLong() > limit) {
            throw ApiException.tooLarge(limit);
        }
        try (InputStream in = request.getInputStream()) {
            byte[] body = in.readNBytes(limit + 1);
            if (body.length > limit) {
                throw ApiException.tooLarge(limit);
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
