package dev.outbox.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A bearer credential known only by its SHA-256: configuration holds the digest, never the secret, and the
 * comparison takes the same time whatever the token.
 */
public final class BearerDigest {

    private final byte[] digest;

    private BearerDigest(byte[] digest) {
        this.digest = digest;
    }

    /** @param hex the 64 hex digits of a SHA-256 */
    public static BearerDigest ofHex(String hex) {
        if (hex == null || !hex.trim().matches("[0-9a-fA-F]{64}")) {
            throw new IllegalArgumentException("expected the 64 hex digits of a SHA-256");
        }
        return new BearerDigest(HexFormat.of().parseHex(hex.trim()));
    }

    /** The digest of a presented token: hash it once, then compare it with as many digests as configured. */
    public static BearerDigest ofToken(String token) {
        return new BearerDigest(sha256(token));
    }

    /** Whether {@code token} hashes to this digest. */
    public boolean matches(String token) {
        return token != null && sameAs(ofToken(token));
    }

    /** Whether both are the digest of the same token, compared in constant time. */
    public boolean sameAs(BearerDigest presented) {
        return MessageDigest.isEqual(digest, presented.digest);
    }

    /**
     * The token of an {@code Authorization: Bearer <token>} header, or {@code null} when the header is absent
     * or of another scheme.
     */
    public static String tokenOf(String authorizationHeader) {
        if (authorizationHeader == null || !authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = authorizationHeader.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
