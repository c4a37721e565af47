package dev.outbox.payments.web;

import java.net.URI;

import io.swagger.v3.oas.annotations.media.Schema;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

/**
 * RFC 9457's members as every layer of the API port writes them, for the OpenAPI document only: the answers
 * themselves are Spring's ProblemDetail and service-security's Problems.
 */
@Schema(name = "Problem", description = "An RFC 9457 problem document.")
record ProblemDocument(
        @Schema(
                requiredMode = REQUIRED,
                description = "Stable: urn:problem-type:payments:* or urn:problem-type:http:*.")
        URI type,

        @Schema(requiredMode = REQUIRED) String title,
        @Schema(requiredMode = REQUIRED) int status,

        @Schema(
                requiredMode = REQUIRED,
                description = "A sentence for people; never a class name, a stack trace or SQL.")
        String detail,

        @Schema(description = "The request's path, where the layer that answered sets it.")
        URI instance) {}
