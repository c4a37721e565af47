package dev.outbox.security;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The operator credential of a service.
 *
 * @param tokenSha256 SHA-256 (hex) of the admin bearer token; empty disables the operator endpoints (403)
 * @param paths       path patterns besides the actuator's that belong to the operator chain (the relay: {@code /**})
 */
@ConfigurationProperties("admin")
public record AdminProperties(
        @DefaultValue("") String tokenSha256,
        @DefaultValue("") List<String> paths) {

    /** The admin principal's digest, or none when the operator endpoints are disabled. */
    public BearerPrincipals principals() {
        return tokenSha256.isBlank()
                ? BearerPrincipals.none()
                : BearerPrincipals.of("admin", BearerDigest.ofHex(tokenSha256));
    }
}
