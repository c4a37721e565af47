package dev.outbox.payments;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.outbox.security.RawHttp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document: served without a credential at /v3/api-docs on the API port, equal to the committed
 * docs/openapi/payments-api.json (so neither drifts from the other), and saying what a client must know: the three
 * operations, the bearer scheme, the Idempotency-Key header, bodies of decimal strings, and every problem type the API
 * port answers with its status.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenApiDocumentIntegrationTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PaymentsTestDatabase.register(registry);
    }

    static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    @Test
    void theCommittedDocumentIsTheServedOne() throws Exception {
        HttpResponse<String> served = ApiDocs.fetch(port);
        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(served.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        Path committed = ApiDocs.committed();
        Path fresh = Path.of("target", "openapi", "payments-api.json");
        Files.createDirectories(fresh.getParent());
        Files.writeString(fresh, served.body() + "\n");

        assertThat(Files.exists(committed)).as(committed + " exists").isTrue();
        assertThat(JSON.readTree(Files.readString(committed)))
                .as(
                        "%s is the document served at /v3/api-docs; if the API changed on purpose, copy %s over it",
                        committed, fresh.toAbsolutePath())
                .isEqualTo(JSON.readTree(served.body()));
    }

    @Test
    void theDocumentNamesOperationsCredentialsHeadersAndDecimalStrings() {
        JsonNode doc = ApiDocs.served(port);

        assertThat(doc.path("openapi").asString()).startsWith("3.1");
        JsonNode scheme = doc.path("components").path("securitySchemes").path("apiKey");
        assertThat(scheme.path("type").asString()).isEqualTo("http");
        assertThat(scheme.path("scheme").asString()).isEqualTo("bearer");
        JsonNode create = doc.path("paths").path("/payments").path("post");
        JsonNode read = doc.path("paths").path("/payments/{id}").path("get");
        JsonNode refund = doc.path("paths").path("/payments/{id}/refunds").path("post");
        assertThat(List.of(create, read, refund))
                .extracting(op -> op.path("operationId").asString())
                .containsExactly("createPayment", "getPayment", "refundPayment");
        for (JsonNode operation : List.of(create, read, refund)) {
            assertThat(operation.path("security").toString()).contains("apiKey");
            assertThat(operation.path("responses").path("401").path("$ref").asString())
                    .isEqualTo("#/components/responses/Unauthenticated");
        }
        for (JsonNode post : List.of(create, refund)) {
            JsonNode key = header(post, "Idempotency-Key");
            assertThat(key.path("required").asBoolean()).isTrue();
            assertThat(key.path("schema").path("maxLength").asInt()).isEqualTo(255);
            assertThat(post.path("requestBody").path("required").asBoolean()).isTrue();
            assertThat(post.path("responses").path("201").path("headers").has("Idempotent-Replayed"))
                    .isTrue();
        }
        JsonNode schemas = doc.path("components").path("schemas");
        for (String body : List.of("NewPayment", "NewRefund")) {
            JsonNode amount = schemas.path(body).path("properties").path("amount");
            assertThat(amount.path("type").asString()).as(body + ".amount").isEqualTo("string");
            assertThat(amount.path("pattern").asString()).as(body + ".amount").isNotEmpty();
            assertThat(amount.path("description").asString()).contains("decimal string");
            assertThat(schemas.path(body).path("additionalProperties").asBoolean(true))
                    .as(body + " refuses unknown fields")
                    .isFalse();
            assertThat(schemas.path(body).path("required").toString()).contains("amount");
        }
        assertThat(create.path("requestBody").toString()).contains("#/components/schemas/NewPayment");
        assertThat(refund.path("requestBody").toString()).contains("#/components/schemas/NewRefund");
        assertThat(schemas.path("Payment")
                        .path("properties")
                        .path("amount")
                        .path("type")
                        .asString())
                .isEqualTo("string");
    }

    @Test
    void everyProblemTypeIsDocumentedWithItsStatusAndEveryReferenceResolves() {
        JsonNode doc = ApiDocs.served(port);

        assertThat(ApiDocs.problems(doc))
                .contains(
                        "400 payments:invalid-request",
                        "400 http:bad-request",
                        "400 http:request-rejected",
                        "401 payments:unauthenticated",
                        "404 payments:not-found",
                        "404 http:not-found",
                        "405 http:method-not-allowed",
                        "406 http:not-acceptable",
                        "409 payments:idempotency-key-in-progress",
                        "409 payments:refund-exceeds-payment",
                        "413 payments:payload-too-large",
                        "415 http:unsupported-media-type",
                        "422 payments:idempotency-key-reused",
                        "500 payments:internal-error",
                        "500 http:internal-server-error");
        List<String> references = new ArrayList<>();
        doc.path("paths")
                .forEach(path -> path.forEach(operation -> operation
                        .path("responses")
                        .properties()
                        .forEach(e -> {
                            String ref = e.getValue().path("$ref").asString("");
                            if (!ref.isEmpty()) {
                                references.add(e.getKey() + " " + ref);
                            }
                        })));
        assertThat(references).isNotEmpty();
        for (String reference : references) {
            String[] parts = reference.split(" ");
            JsonNode response = doc.path("components")
                    .path("responses")
                    .path(parts[1].substring("#/components/responses/".length()));
            assertThat(response.isMissingNode()).as(reference + " resolves").isFalse();
            response.path("content")
                    .path("application/problem+json")
                    .path("examples")
                    .forEach(example -> assertThat(
                                    example.path("value").path("status").asInt())
                            .as(reference + " documents problems of its own status")
                            .isEqualTo(Integer.parseInt(parts[0])));
        }
    }

    @Test
    void onlyTheDocumentsOwnPathIsOpenAndAWrongCredentialIsStillRefused() {
        assertThat(RawHttp.send(port, "GET", "/v3/api-docs.yaml", java.util.Map.of(), null)
                        .status())
                .as("springdoc's other spellings fall to the deny-all chain")
                .isEqualTo(404);
        assertThat(RawHttp.send(port, "GET", "/v3/api-docs/payments", java.util.Map.of(), null)
                        .status())
                .isEqualTo(404);
        RawHttp.Response wrongKey = RawHttp.get(port, ApiDocs.PATH, "not-a-key");
        assertThat(wrongKey.status()).isEqualTo(401);
        assertThat(wrongKey.body()).contains("urn:problem-type:payments:unauthenticated");
    }

    private static JsonNode header(JsonNode operation, String name) {
        for (JsonNode parameter : operation.path("parameters")) {
            if (parameter.path("in").asString().equals("header")
                    && parameter.path("name").asString().equals(name)) {
                return parameter;
            }
        }
        throw new AssertionError("no header parameter " + name + " in " + operation);
    }
}
