package dev.outbox.payments.web;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.outbox.security.Problems;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;

/**
 * The API's OpenAPI 3.1 document beyond what springdoc reads from the controller: the bearer scheme of the API keys,
 * and every problem document the API port answers, one reusable response per kind with an example per problem type,
 * so clients can branch on {@code type}. docs/openapi/payments-api.json is this document as served; a test holds
 * the two together.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

    static final String API_KEY = "apiKey";

    /**
     * A problem type as the API port answers it: its status, its stable type, when it happens, and a detail as
     * answered (the detail is for people and may vary; clients branch on the type).
     */
    record ProblemType(HttpStatus status, URI type, String title, String when, String detail) {

        static ProblemType payments(HttpStatus status, String slug, String title, String when, String detail) {
            return new ProblemType(status, ProblemResponses.type(slug), title, when, detail);
        }

        /** What HTTP itself refuses, as every layer spells it (service-security's {@link Problems}). */
        static ProblemType http(HttpStatus status, String when) {
            return new ProblemType(
                    status, Problems.httpType(status), Problems.title(status), when, Problems.detail(status));
        }
    }

    private static final ProblemType INVALID = ProblemType.payments(
            HttpStatus.BAD_REQUEST,
            "invalid-request",
            "Invalid request",
            "The body or a header breaks the rules: not one UTF-8 JSON object, a repeated key, an unknown field, an"
                    + " amount that is not a decimal string or has too many decimals, a currency not taken, a"
                    + " missing or repeated Idempotency-Key or Content-Type.",
            "amount must be a decimal string such as \"12.50\": digits and at most one point, without sign,"
                    + " exponent, spaces or leading zeros.");
    private static final ProblemType BAD_REQUEST = ProblemType.http(
            HttpStatus.BAD_REQUEST, "HTTP cannot read the request (a malformed URI, oversized headers).");
    private static final ProblemType REJECTED = new ProblemType(
            HttpStatus.BAD_REQUEST,
            URI.create("urn:problem-type:http:request-rejected"),
            "Request rejected",
            "The URL or its headers are not in normalized form (path parameters, encoded separators, dot"
                    + " segments).",
            "The request URL or its headers are not in normalized form.");
    private static final ProblemType UNAUTHENTICATED = ProblemType.payments(
            HttpStatus.UNAUTHORIZED,
            "unauthenticated",
            "Unauthenticated",
            "No API key, an unknown one, or another scheme than Bearer.",
            "Send a valid API key as 'Authorization: Bearer <key>'.");
    private static final ProblemType PAYMENT_NOT_FOUND = ProblemType.payments(
            HttpStatus.NOT_FOUND,
            "not-found",
            "Not found",
            "No payment of the calling client has this id (another client's payment is not found either).",
            "No payment 0b6f4f7e-8a53-4c5e-9a43-2f1d6a3c9e10.");
    private static final ProblemType NOT_FOUND = ProblemType.http(HttpStatus.NOT_FOUND, "No operation has this path.");
    private static final ProblemType METHOD_NOT_ALLOWED =
            ProblemType.http(HttpStatus.METHOD_NOT_ALLOWED, "A method the path does not take.");
    private static final ProblemType NOT_ACCEPTABLE = ProblemType.http(
            HttpStatus.NOT_ACCEPTABLE, "An Accept header that excludes application/json and application/problem+json.");
    private static final ProblemType IN_PROGRESS = ProblemType.payments(
            HttpStatus.CONFLICT,
            "idempotency-key-in-progress",
            "Request in progress",
            "A request with this Idempotency-Key is still running and did not finish within"
                    + " PAYMENTS_IDEMPOTENCY_LOCK_TIMEOUT; send it again later with the same key.",
            "A request with this Idempotency-Key is still being processed; retry later.");
    private static final ProblemType REFUND_EXCEEDS = ProblemType.payments(
            HttpStatus.CONFLICT,
            "refund-exceeds-payment",
            "Refund exceeds payment",
            "The payment's refunds would exceed its amount.",
            "The refund exceeds what is left to refund on this payment.");
    private static final ProblemType TOO_LARGE = ProblemType.payments(
            HttpStatus.CONTENT_TOO_LARGE,
            "payload-too-large",
            "Payload too large",
            "The body exceeds PAYMENTS_MAX_BODY_BYTES.",
            "The request body exceeds 16384 bytes.");
    private static final ProblemType UNSUPPORTED = ProblemType.http(
            HttpStatus.UNSUPPORTED_MEDIA_TYPE,
            "A Content-Type other than application/json, or a charset other than UTF-8.");
    private static final ProblemType KEY_REUSED = ProblemType.payments(
            HttpStatus.UNPROCESSABLE_CONTENT,
            "idempotency-key-reused",
            "Idempotency-Key reused",
            "This client used the Idempotency-Key for a different request.",
            "This Idempotency-Key was already used with a different request.");
    private static final ProblemType INTERNAL = ProblemType.payments(
            HttpStatus.INTERNAL_SERVER_ERROR,
            "internal-error",
            "Internal error",
            "An unexpected failure in the API's own handling; nothing was recorded.",
            "The request could not be completed; nothing was recorded. Retry with the same Idempotency-Key.");
    private static final ProblemType SERVER_ERROR = ProblemType.http(
            HttpStatus.INTERNAL_SERVER_ERROR, "A failure outside the API's own handling (the server's error page).");

    /** Reusable responses by name, as the controller's {@code @ApiResponse(ref = ...)} names them. */
    static final Map<String, List<ProblemType>> RESPONSES = responses();

    private static Map<String, List<ProblemType>> responses() {
        Map<String, List<ProblemType>> responses = new LinkedHashMap<>();
        responses.put("BadRequest", List.of(INVALID, BAD_REQUEST, REJECTED));
        responses.put("Unauthenticated", List.of(UNAUTHENTICATED));
        responses.put("PaymentNotFound", List.of(PAYMENT_NOT_FOUND, NOT_FOUND));
        responses.put("MethodNotAllowed", List.of(METHOD_NOT_ALLOWED));
        responses.put("NotAcceptable", List.of(NOT_ACCEPTABLE));
        responses.put("RequestInProgress", List.of(IN_PROGRESS));
        responses.put("RefundConflict", List.of(REFUND_EXCEEDS, IN_PROGRESS));
        responses.put("PayloadTooLarge", List.of(TOO_LARGE));
        responses.put("UnsupportedMediaType", List.of(UNSUPPORTED));
        responses.put("IdempotencyKeyReused", List.of(KEY_REUSED));
        responses.put("InternalError", List.of(INTERNAL, SERVER_ERROR));
        return responses;
    }

    @Bean
    OpenAPI paymentsOpenApi() {
        return new OpenAPI()
                .info(new Info()
                        .title("payments-api")
                        .version("1")
                        .description("Payments and refunds, each written with its outbox event and its idempotency"
                                + " record in one transaction. Every POST needs an Idempotency-Key: the same client,"
                                + " key and request replay the stored response byte for byte (Idempotent-Replayed:"
                                + " true), another request under the same key is refused. Amounts are decimal"
                                + " strings, never JSON numbers. Every refusal is an RFC 9457 problem document"
                                + " (application/problem+json) whose type is stable: urn:problem-type:payments:* for"
                                + " the API's own, urn:problem-type:http:* for what HTTP itself refuses. A path no"
                                + " operation has is http:not-found, a method it does not take"
                                + " http:method-not-allowed."))
                // a fixed, relative server: springdoc would otherwise write the URL each request came in on
                .servers(List.of(new Server().url("/").description("the service's API port")))
                .components(new Components()
                        .addSecuritySchemes(
                                API_KEY,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .description("A client's API key, sent as 'Authorization: Bearer <key>'. The"
                                                + " client it names owns the payments it creates and its"
                                                + " Idempotency-Keys.")));
    }

    /** Adds the problem schema and one response per kind of refusal, after springdoc read the controllers. */
    @Bean
    OpenApiCustomizer documentedProblems() {
        return openApi -> {
            Components components = openApi.getComponents();
            ModelConverters.getInstance(true).readAll(ProblemDocument.class).forEach(components::addSchemas);
            RESPONSES.forEach((name, types) -> components.addResponses(name, response(types)));
        };
    }

    private static ApiResponse response(List<ProblemType> types) {
        MediaType problem = new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"));
        StringBuilder description = new StringBuilder();
        for (ProblemType type : types) {
            String urn = type.type().toString();
            description
                    .append(description.isEmpty() ? "" : " ")
                    .append(urn)
                    .append(": ")
                    .append(type.when());
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("type", urn);
            value.put("title", type.title());
            value.put("status", type.status().value());
            value.put("detail", type.detail());
            problem.addExamples(
                    urn.substring("urn:problem-type:".length()),
                    new Example().summary(type.title()).value(value));
        }
        ApiResponse response = new ApiResponse()
                .description(description.toString())
                .content(new Content().addMediaType("application/problem+json", problem));
        if (types.contains(UNAUTHENTICATED)) {
            response.addHeaderObject(
                    "WWW-Authenticate",
                    new Header().description("Bearer").schema(new Schema<>().types(Set.of("string"))));
        }
        return response;
    }
}
