package dev.outbox.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 spelled by hand over a socket, the way an attacker sends it: the request line goes out byte for byte,
 * with no client library normalizing, encoding or refusing anything on the way.
 */
public final class RawHttp {

    private RawHttp() {}

    public record Response(int status, Map<String, String> headers, String body) {

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public boolean isProblem() {
            String type = header("content-type");
            return type != null && type.startsWith("application/problem+json");
        }

        @Override
        public String toString() {
            return status + " " + headers.get("content-type") + " " + body;
        }
    }

    /** {@code target} is sent as is, e.g. {@code /%61ctuator;x/prometheus}. */
    public static Response send(int port, String method, String target, Map<String, String> headers, String body) {
        StringBuilder request = new StringBuilder(method)
                .append(' ')
                .append(target)
                .append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:")
                .append(port)
                .append("\r\nConnection: close\r\n");
        headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Length: ").append(content.length).append("\r\n");
        }
        request.append("\r\n");
        return sendBytes(port, concat(request.toString().getBytes(StandardCharsets.ISO_8859_1), content));
    }

    public static Response get(int port, String target, String bearer) {
        return send(port, "GET", target, bearer == null ? Map.of() : Map.of("Authorization", "Bearer " + bearer), null);
    }

    /** Any bytes at all, for request lines and headers no well-behaved client can produce. */
    public static Response sendBytes(int port, byte[] request) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Response parse(byte[] raw) throws IOException {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no HTTP response: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.merge(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(
                status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (at < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(
                    chunked.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(a.length + b.length);
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }
}
