package dev.outbox.payments.payment;

import java.net.URI;
import java.security.Principal;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import jakarta.servlet.http.HttpServletRequest;

import dev.outbox.payments.idempotency.StoredResponse;
import dev.outbox.payments.payment.PaymentRequests.NewPayment;
import dev.outbox.payments.payment.PaymentViews.PaymentView;
import dev.outbox.payments.web.ApiProperties;
import dev.outbox.payments.web.IdempotencyKeyHeader;
import dev.outbox.payments.web.JsonBodies;
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
final class PaymentController {

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
    ResponseEntity<byte[]> create(Principal client, HttpServletRequest request) {
        String key = IdempotencyKeyHeader.of(request);
        NewPayment payment = PaymentRequests.payment(bodies.read(request), currencies);
        StoredResponse response = service.create(client.getName(), key, payment);
        return respond(response, URI.create("/payments/" + response.resourceId()));
    }

    @GetMapping("/payments/{id}")
    PaymentView get(Principal client, @PathVariable String id) {
        return PaymentView.of(service.find(paymentId(id), client.getName()));
    }

    @PostMapping(path = "/payments/{id}/refunds", consumes = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<byte[]> refund(Principal client, @PathVariable String id, HttpServletRequest request) {
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
