package dev.outbox.security;

import dev.outbox.local.LocalCredentials;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BearerDigestTests {

    static final String LOCAL_ADMIN_TOKEN_SHA256 = "bc32a9a66697ce5242e5517f4a801fa2a3dccf9960459f666fec8a166289401e";

    @Test
    void theDigestMatchesOnlyItsTokenAndOnlyTheBearerScheme() {
        BearerDigest digest = BearerDigest.ofHex(LOCAL_ADMIN_TOKEN_SHA256);

        assertThat(digest.matches(LocalCredentials.ADMIN_TOKEN)).isTrue();
        assertThat(digest.matches("local-admin-token ")).isFalse();
        assertThat(digest.matches(null)).isFalse();
        assertThat(BearerDigest.tokenOf("Bearer local-admin-token")).isEqualTo(LocalCredentials.ADMIN_TOKEN);
        assertThat(BearerDigest.tokenOf("bearer local-admin-token")).isEqualTo(LocalCredentials.ADMIN_TOKEN);
        assertThat(BearerDigest.tokenOf("Basic bG9jYWw6YWRtaW4=")).isNull();
        assertThat(BearerDigest.tokenOf("Bearer ")).isNull();
        assertThatThrownBy(() -> BearerDigest.ofHex("not-hex")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void principalsAreParsedStrictlyAndMatchedByDigest() {
        BearerPrincipals principals = BearerPrincipals.parse("keys", "a=" + LOCAL_ADMIN_TOKEN_SHA256 + ", ,");
        assertThat(principals.match(LocalCredentials.ADMIN_TOKEN)).hasValue("a");
        assertThat(principals.match("other")).isEmpty();
        assertThat(BearerPrincipals.parse("keys", "").isEmpty()).isTrue();
        assertThatThrownBy(() -> BearerPrincipals.parse("keys", "a=zz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BearerPrincipals.parse("keys", "a b=" + LOCAL_ADMIN_TOKEN_SHA256))
                .hasMessageContaining("name=sha256hex");
        assertThatThrownBy(() -> BearerPrincipals.parse(
                        "keys", "a=" + LOCAL_ADMIN_TOKEN_SHA256 + ",a=" + LOCAL_ADMIN_TOKEN_SHA256))
                .hasMessageContaining("twice");
    }
}
