package dev.outbox.security;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param tokenSha256 SHA-256 (hex) of the admin bearer token; empty disables the protected endpoints (403)
 * @param paths       path prefixes besides the actuator's that need the admin token
 */
@ConfigurationProperties("admin")
public record AdminProperties(@DefaultValue("") String tokenSha256, @DefaultValue("") List<String> paths) {

    /** The configured digest, or {@code null} when none is. */
    public BearerDigest token() {
        return tokenSha256.isBlank() ? null : BearerDigest.ofHex(tokenSha256);
    }
}
