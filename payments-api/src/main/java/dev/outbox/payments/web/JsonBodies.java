package dev.outbox.payments.web;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Collections;
import java.util.List;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a request body as one JSON object, strictly, before any field is looked at: at most the configured number
 * of bytes (413), one Content-Type, a UTF-8 charset if one is declared (415), well-formed UTF-8 without a byte order mark, no
 * duplicate keys (a JSON parser that keeps the last of two "amount" keys would answer one amount and store
 * another), and nothing after the object.
 */
@Component
public final class JsonBodies {

    private final int limit;
    private final ObjectReader reader;

    JsonBodies(ApiProperties properties, JsonMapper json) {
        this.limit = properties.maxBodyBytes();
        this.reader = json.reader()
                .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    public ObjectNode read(HttpServletRequest request) {
        List<String> contentTypes = Collections.list(request.getHeaders(HttpHeaders.CONTENT_TYPE));
        if (contentTypes.size() > 1) {
            throw ApiException.invalid("Send exactly one Content-Type header.");
        }
        if (!declaresUtf8OrNoCharset(request.getHeader(HttpHeaders.CONTENT_TYPE))) {
            throw ApiException.unsupportedMediaType();
        }
        byte[] bytes = bytes(request);
        if (bytes.length == 0) {
            throw ApiException.invalid("A JSON request body is required.");
        }
        JsonNode tree;
        try {
            tree = reader.readTree(utf8(bytes));
        } catch (JacksonException e) {
            throw ApiException.invalid(
                    e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate")
                            ? "The body repeats a key; every key may appear once."
                            : "The body is not well-formed JSON.");
        }
        if (!(tree instanceof ObjectNode object)) {
            throw ApiException.invalid("A JSON object is required.");
        }
        return object;
    }

    /**
     * The charset as the client declared it (the container's request encoding is forced to UTF-8 before this runs,
     * so it cannot tell).
     */
    private static boolean declaresUtf8OrNoCharset(String contentType) {
        try {
            Charset charset = contentType == null
                    ? null
                    : MediaType.parseMediaType(contentType).getCharset();
            return charset == null || charset.equals(StandardCharsets.UTF_8);
        } catch (InvalidMediaTypeException | UnsupportedCharsetException | IllegalCharsetNameException e) {
            return false;
        }
    }

    private byte[] bytes(HttpServletRequest request) {
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
            // a malformed chunk, a body shorter than its Content-Length: the client's fault, not worth an error log
            throw ApiException.invalid("The body could not be read as sent.");
        }
    }

    /** Decodes UTF-8 and refuses what is not: malformed sequences, encoded surrogates, a byte order mark. */
    private static String utf8(byte[] bytes) {
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            if (text.startsWith("\uFEFF")) {
                throw ApiException.invalid("The body starts with a byte order mark; send plain UTF-8.");
            }
            return text;
        } catch (CharacterCodingException e) {
            throw ApiException.invalid("The body is not valid UTF-8.");
        }
    }
}
