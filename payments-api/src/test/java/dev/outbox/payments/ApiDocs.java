package dev.outbox.payments;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The OpenAPI document as the API serves it and as the repository keeps it, and the problems it documents. */
final class ApiDocs {

    static final String PATH = "/v3/api-docs";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ApiDocs() {}

    /** GET /v3/api-docs without a credential, as any client or gateway reads it. */
    static HttpResponse<String> fetch(int port) {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + PATH))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode served(int port) {
        return JSON.readTree(fetch(port).body());
    }

    /** docs/openapi/payments-api.json, the copy the repository publishes. */
    static Path committed() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("compose.yaml"))) {
                return p.resolve("docs/openapi/payments-api.json");
            }
        }
        throw new IllegalStateException(
                "the repository's root not found above " + Path.of("").toAbsolutePath());
    }

    /** "status type" of every problem example of every reusable response, e.g. "422 payments:idempotency-key-reused". */
    static Set<String> problems(JsonNode document) {
        Set<String> problems = new TreeSet<>();
        for (JsonNode response : document.path("components").path("responses")) {
            for (JsonNode example :
                    response.path("content").path("application/problem+json").path("examples")) {
                JsonNode value = example.path("value");
                problems.add(value.path("status").asInt() + " "
                        + value.path("type").asString().substring("urn:problem-type:".length()));
            }
        }
        return problems;
    }
}
