package dev.outbox.payments.web;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import jakarta.servlet.ServletInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.DelegatingServletInputStream;
import org.springframework.mock.web.MockHttpServletRequest;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A request body read strictly, without a server: size, media type, UTF-8, one object, each key once. */
class JsonBodiesTests {

    static final int LIMIT = 64;
    final JsonBodies bodies = new JsonBodies(
            new ApiProperties(LIMIT, "", Set.of("EUR")), JsonMapper.builder().build());

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/json;charset=UTF-8", "application/json; charset=utf-8"})
    void readsOneObjectWithNoOrAUtf8Charset(String contentType) {
        assertThat(bodies.read(request(contentType, "{\"amount\":\"1.00\"}"))
                        .get("amount")
                        .asString())
                .isEqualTo("1.00");
    }

    @Test
    void readsABodyWithoutAContentTypeAsJson() {
        assertThat(bodies.read(request(null, "{}")).isEmpty()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json;charset=ISO-8859-1", "application/json;charset=nonsense", "not a type"})
    void refusesAnotherOrAnUnknownCharsetOrAnUnparseableType(String contentType) {
        assertRefused(request(contentType, "{}"), HttpStatus.UNSUPPORTED_MEDIA_TYPE, null);
    }

    @Test
    void refusesTwoContentTypes() {
        // the mock keeps one Content-Type, as a container would not: answer both, as Tomcat does
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments") {
            @Override
            public java.util.Enumeration<String> getHeaders(String name) {
                return name.equalsIgnoreCase("Content-Type")
                        ? java.util.Collections.enumeration(java.util.List.of("application/json", "application/json"))
                        : super.getHeaders(name);
            }
        };
        request.setContent("{}".getBytes(StandardCharsets.UTF_8));
        assertRefused(request, HttpStatus.BAD_REQUEST, "Send exactly one Content-Type header.");
    }

    @Test
    void takesExactlyTheLimitAndRefusesOneByteMoreWithOrWithoutALength() {
        String atLimit = "{\"k\":\"" + "x".repeat(LIMIT - 8) + "\"}";
        assertThat(atLimit).hasSize(LIMIT);
        assertThat(bodies.read(request("application/json", atLimit)).get("k").asString())
                .hasSize(LIMIT - 8);

        String over = "{\"k\":\"" + "x".repeat(LIMIT - 7) + "\"}";
        assertRefused(
                request("application/json", over), HttpStatus.CONTENT_TOO_LARGE, "The request body exceeds 64 bytes.");
        MockHttpServletRequest chunked = streamed(over);
        assertThat(chunked.getContentLengthLong()).isEqualTo(-1);
        assertRefused(chunked, HttpStatus.CONTENT_TOO_LARGE, "The request body exceeds 64 bytes.");
        assertThat(bodies.read(streamed(atLimit)).get("k").asString()).hasSize(LIMIT - 8);
    }

    @Test
    void refusesWhatIsNotExactlyOneWellFormedObject() {
        assertRefused(request("application/json", ""), HttpStatus.BAD_REQUEST, "A JSON request body is required.");
        assertRefused(request("application/json", "[1]"), HttpStatus.BAD_REQUEST, "A JSON object is required.");
        assertRefused(
                request("application/json", "{\"a\":"), HttpStatus.BAD_REQUEST, "The body is not well-formed JSON.");
        assertRefused(
                request("application/json", "{} {}"), HttpStatus.BAD_REQUEST, "The body is not well-formed JSON.");
        assertRefused(
                request("application/json", "{\"amount\":\"1\",\"amount\":\"2\"}"),
                HttpStatus.BAD_REQUEST,
                "The body repeats a key; every key may appear once.");
    }

    @Test
    void refusesAByteOrderMarkAndMalformedUtf8() {
        assertRefused(
                request("application/json", "\uFEFF{}"),
                HttpStatus.BAD_REQUEST,
                "The body starts with a byte order mark; send plain UTF-8.");
        MockHttpServletRequest latin1 = request("application/json", "");
        latin1.setContent(new byte[] {'{', '"', (byte) 0xE9, '"', ':', '1', '}'});
        assertRefused(latin1, HttpStatus.BAD_REQUEST, "The body is not valid UTF-8.");
        MockHttpServletRequest surrogate = request("application/json", "");
        surrogate.setContent(new byte[] {'{', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', ':', '1', '}'});
        assertRefused(surrogate, HttpStatus.BAD_REQUEST, "The body is not valid UTF-8.");
    }

    @Test
    void aBodyThatBreaksOffWhileReadIsTheClientsFault() {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments") {
            @Override
            public ServletInputStream getInputStream() {
                return new DelegatingServletInputStream(new InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new IOException("connection reset");
                    }
                });
            }
        };
        assertRefused(request, HttpStatus.BAD_REQUEST, "The body could not be read as sent.");
    }

    private void assertRefused(MockHttpServletRequest request, HttpStatus status, String detail) {
        assertThatThrownBy(() -> bodies.read(request)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(status);
            if (detail != null) {
                assertThat(e).hasMessage(detail);
            }
        });
    }

    private static MockHttpServletRequest request(String contentType, String body) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
        if (contentType != null) {
            request.addHeader("Content-Type", contentType);
        }
        request.setContent(body.getBytes(StandardCharsets.UTF_8));
        return request;
    }

    /** A body without a Content-Length, as a chunked request arrives. */
    private static MockHttpServletRequest streamed(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return new MockHttpServletRequest("POST", "/payments") {
            @Override
            public ServletInputStream getInputStream() {
                return new DelegatingServletInputStream(new java.io.ByteArrayInputStream(bytes));
            }
        };
    }
}
