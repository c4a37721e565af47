package dev.outbox.security;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Named principals known only by the SHA-256 of their bearer token ({@code name=sha256hex,...} in configuration).
 * A presented token is hashed once and compared with every digest in constant time, so neither the answer's time
 * nor an early exit tells which principal a guess is close to.
 */
public final class BearerPrincipals {

    private final Map<String, BearerDigest> digests;

    private BearerPrincipals(Map<String, BearerDigest> digests) {
        this.digests = Map.copyOf(digests);
    }

    public static BearerPrincipals none() {
        return new BearerPrincipals(Map.of());
    }

    public static BearerPrincipals of(String name, BearerDigest digest) {
        return new BearerPrincipals(Map.of(name, digest));
    }

    /** Parses {@code name=sha256hex,...}; blank entries are skipped, anything else malformed fails the start-up. */
    public static BearerPrincipals parse(String property, String value) {
        Map<String, BearerDigest> digests = new LinkedHashMap<>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String[] parts = entry.trim().split("=", 2);
            if (parts.length != 2 || !parts[0].matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException(property + " entries must be name=sha256hex");
            }
            if (digests.put(parts[0], BearerDigest.ofHex(parts[1])) != null) {
                throw new IllegalArgumentException(property + " names " + parts[0] + " twice");
            }
        }
        return new BearerPrincipals(digests);
    }

    public boolean isEmpty() {
        return digests.isEmpty();
    }

    /** The principal whose token this is, if any. */
    public Optional<String> match(String token) {
        BearerDigest presented = BearerDigest.ofToken(token);
        String match = null;
        for (Map.Entry<String, BearerDigest> e : digests.entrySet()) {
            if (e.getValue().sameAs(presented)) {
                match = e.getKey();
            }
        }
        return Optional.ofNullable(match);
    }
}
