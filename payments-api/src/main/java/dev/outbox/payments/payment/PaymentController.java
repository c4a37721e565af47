package dev.outbox.payments.payment;

import java.net.URI;
import java.security.Principal;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import jakarta.servlet.http.HttpServletRequest;

import dev.outbox.payments.idempotency.StoredResponse;
import dev.outbox.payments.payment.PaymentRequests.NewPayment;
import dev.outbox.payments.payment.PaymentRequests.PaymentBody;
import dev.outbox.payments.payment.PaymentRequests.RefundBody;
import dev.outbox.payments.payment.PaymentViews.PaymentView;
import dev.outbox.payments.payment.PaymentViews.RefundView;
import dev.outbox.payments.web.ApiProperties;
import dev.outbox.payments.web.IdempotencyKeyHeader;
import dev.outbox.payments.web.JsonBodies;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /payments}: create (idempotent), read (owner only), refund (idempotent, emits the next version). The
 * caller is the client Spring Security authenticated by its API key; bodies are JSON only.
 */
@RestController
@Tag(name = "payments")
@SecurityRequirement(name = "apiKey")
final class PaymentController {

    private static final String IDEMPOTENCY_KEY = "The client's key for this operation: the same key and request"
            + " replay the stored response, another request under the key is 422. Exactly one header, 1 to 255"
            + " visible ASCII characters; keys are scoped per client and kept for PAYMENTS_IDEMPOTENCY_TTL.";
    private static final String PAYMENT_ID = "The payment's id, a UUID in its canonical spelling.";

    private static final Pattern CANONICAL_UUID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", Pattern.CASE_INSENSITIVE);

    private final PaymentService service;
    private final JsonBodies bodies;
    private final Set<String> currencies;

    PaymentController(PaymentService service, JsonBodies bodies, ApiProperties properties) {
        this.service = service;
        this.bodies = bodies;
        this.currencies = properties.currencies();
    }

    @PostMapping(path = "/payments", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(
            operationId = "createPayment",
            summary = "Create a payment",
            description = "Writes the payment, its PaymentCreated event (version 1) and the key's record in one"
                    + " transaction. The same key with the same body replays the stored response.")
    @Parameter(
            name = IdempotencyKeyHeader.NAME,
            in = ParameterIn.HEADER,
            required = true,
            description = IDEMPOTENCY_KEY,
            schema = @Schema(type = "string", minLength = 1, maxLength = 255, pattern = "^[!-~]+$"))
    @RequestBody(
            required = true,
            description = "Read strictly: one UTF-8 JSON object, no key twice, only these fields, every value a"
                    + " JSON string.",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = PaymentBody.class)))
    @ApiResponse(
            responseCode = "201",
            description = "Created, or the stored answer of the first request with this key and body.",
            headers = {
                @Header(name = "Location", description = "/payments/{id}", schema = @Schema(type = "string")),
                @Header(
                        name = "Idempotent-Replayed",
                        description = "true when this is the stored answer of an earlier request",
                        schema =
                                @Schema(
                                        type = "string",
                                        allowableValues = {"true", "false"}))
            },
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = PaymentView.class)))
    @ApiResponse(responseCode = "400", ref = "BadRequest")
    @ApiResponse(responseCode = "401", ref = "Unauthenticated")
    @ApiResponse(responseCode = "406", ref = "NotAcceptable")
    @ApiResponse(responseCode = "409", ref = "RequestInProgress")
    @ApiResponse(responseCode = "413", ref = "PayloadTooLarge")
    @ApiResponse(responseCode = "415", ref = "UnsupportedMediaType")
    @ApiResponse(responseCode = "422", ref = "IdempotencyKeyReused")
    @ApiResponse(responseCode = "500", ref = "InternalError")
    ResponseEntity<byte[]> create(Principal client, HttpServletRequest request) {
        String key = IdempotencyKeyHeader.of(request);
        NewPayment payment = PaymentRequests.payment(bodies.read(request), currencies);
        StoredResponse response = service.create(client.getName(), key, payment);
        return respond(response, URI.create("/payments/" + response.resourceId()));
    }

    @GetMapping("/payments/{id}")
    @Operation(operationId = "getPayment", summary = "Read one of the calling client's payments")
    @ApiResponse(
            responseCode = "200",
            description = "The payment.",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = PaymentView.class)))
    @ApiResponse(responseCode = "400", ref = "BadRequest")
    @ApiResponse(responseCode = "401", ref = "Unauthenticated")
    @ApiResponse(responseCode = "404", ref = "PaymentNotFound")
    @ApiResponse(responseCode = "406", ref = "NotAcceptable")
    @ApiResponse(responseCode = "500", ref = "InternalError")
    PaymentView get(
            Principal client,
            @Parameter(description = PAYMENT_ID, schema = @Schema(type = "string", format = "uuid")) @PathVariable
                    String id) {
        return PaymentView.of(service.find(paymentId(id), client.getName()));
    }

    @PostMapping(path = "/payments/{id}/refunds", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(
            operationId = "refundPayment",
            summary = "Refund part or all of a payment",
            description = "Writes the refund, the payment's new state and its PaymentRefunded event (the next"
                    + " version) in one transaction. The same key with the same body replays the stored response.")
    @Parameter(
            name = IdempotencyKeyHeader.NAME,
            in = ParameterIn.HEADER,
            required = true,
            description = IDEMPOTENCY_KEY,
            schema = @Schema(type = "string", minLength = 1, maxLength = 255, pattern = "^[!-~]+$"))
    @RequestBody(
            required = true,
            description = "Read strictly, as for a payment.",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = RefundBody.class)))
    @ApiResponse(
            responseCode = "201",
            description = "Created, or the stored answer of the first request with this key and body.",
            headers = {
                @Header(
                        name = "Location",
                        description = "/payments/{id}/refunds/{refundId}",
                        schema = @Schema(type = "string")),
                @Header(
                        name = "Idempotent-Replayed",
                        description = "true when this is the stored answer of an earlier request",
                        schema =
                                @Schema(
                                        type = "string",
                                        allowableValues = {"true", "false"}))
            },
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = RefundView.class)))
    @ApiResponse(responseCode = "400", ref = "BadRequest")
    @ApiResponse(responseCode = "401", ref = "Unauthenticated")
    @ApiResponse(responseCode = "404", ref = "PaymentNotFound")
    @ApiResponse(responseCode = "406", ref = "NotAcceptable")
    @ApiResponse(responseCode = "409", ref = "RefundConflict")
    @ApiResponse(responseCode = "413", ref = "PayloadTooLarge")
    @ApiResponse(responseCode = "415", ref = "UnsupportedMediaType")
    @ApiResponse(responseCode = "422", ref = "IdempotencyKeyReused")
    @ApiResponse(responseCode = "500", ref = "InternalError")
    ResponseEntity<byte[]> refund(
            Principal client,
            @Parameter(description = PAYMENT_ID, schema = @Schema(type = "string", format = "uuid")) @PathVariable
                    String id,
            HttpServletRequest request) {
        String key = IdempotencyKeyHeader.of(request);
        UUID paymentId = paymentId(id);
        String amount = PaymentRequests.refundAmount(bodies.read(request));
        StoredResponse response = service.refund(client.getName(), key, paymentId, amount);
        return respond(response, URI.create("/payments/" + paymentId + "/refunds/" + response.resourceId()));
    }

    private static ResponseEntity<byte[]> respond(StoredResponse response, URI location) {
        return ResponseEntity.status(response.status())
                .location(location)
                .header("Idempotent-Replayed", String.valueOf(response.replayed()))
                .contentType(MediaType.APPLICATION_JSON)
                .body(response.body());
    }

    /** Only the canonical spelling of a UUID names a payment ({@link UUID#fromString} also takes "1-1-1-1-1"). */
    private static UUID paymentId(String id) {
        if (!CANONICAL_UUID.matcher(id).matches()) {
            throw new PaymentNotFound("No payment " + FreeText.fragment(id) + ".");
        }
        return UUID.fromString(id);
    }
}
