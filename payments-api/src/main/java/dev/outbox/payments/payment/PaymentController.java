package dev.outbox.payments.payment;

import java.net.URI;
import java.util.UUID;

import jakarta.servlet.http.HttpServletRequest;

import dev.outbox.payments.idempotency.IdempotentOperations;
import dev.outbox.payments.idempotency.StoredResponse;
import dev.outbox.payments.payment.PaymentViews.PaymentView;
import dev.outbox.payments.web.ApiException;
import dev.outbox.payments.web.ClientId;
import dev.outbox.payments.web.CrashPoint;
import dev.outbox.payments.web.RequestBodies;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** {@code /payments}: create (idempotent), read (owner only), refund (idempotent, emits the next version). */
@RestController
final class PaymentController {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final PaymentService service;
    private final PaymentRequests requests;
    private final RequestBodies bodies;
    private final CrashPoint crashPoint;

    PaymentController(PaymentService service, PaymentRequests requests, RequestBodies bodies, CrashPoint crashPoint) {
        this.service = service;
        this.requests = requests;
        this.bodies = bodies;
        this.crashPoint = crashPoint;
    }

    @PostMapping("/payments")
    ResponseEntity<byte[]> create(@RequestAttribute(ClientId.ATTRIBUTE) String clientId,
            @RequestHeader(name = IDEMPOTENCY_KEY, required = false) String key, HttpServletRequest request) {
        String validKey = IdempotentOperations.validKey(key);
        var payment = requests.payment(bodies.read(request));
        StoredResponse response = service.create(clientId, validKey, payment);
        crashPoint.afterCommit();
        return respond(response, URI.create("/payments/" + response.resourceId()));
    }

    @GetMapping("/payments/{id}")
    PaymentView get(@RequestAttribute(ClientId.ATTRIBUTE) String clientId, @PathVariable String id) {
        return PaymentView.of(service.find(paymentId(id), clientId));
    }

    @PostMapping("/payments/{id}/refunds")
    ResponseEntity<byte[]> refund(@RequestAttribute(ClientId.ATTRIBUTE) String clientId, @PathVariable String id,
            @RequestHeader(name = IDEMPOTENCY_KEY, required = false) String key, HttpServletRequest request) {
        String validKey = IdempotentOperations.validKey(key);
        UUID paymentId = paymentId(id);
        var amount = requests.refundAmount(bodies.read(request));
        StoredResponse response = service.refund(clientId, validKey, paymentId, amount);
        return respond(response, URI.create("/payments/" + paymentId + "/refunds/" + response.resourceId()));
    }

    private static ResponseEntity<byte[]> respond(StoredResponse response, URI location) {
        return ResponseEntity.status(response.status())
                .location(location)
                .header("Idempotent-Replayed", String.valueOf(response.replayed()))
                .contentType(MediaType.APPLICATION_JSON)
                .body(response.body());
    }

    private static UUID paymentId(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("No payment " + id.replaceAll("[^0-9a-fA-F-]", "?") + ".");
        }
    }
}
