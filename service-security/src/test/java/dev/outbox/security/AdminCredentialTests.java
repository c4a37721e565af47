package dev.outbox.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class AdminCredentialTests {

    static final String LOCAL_ADMIN_TOKEN_SHA256 = "bc32a9a66697ce5242e5517f4a801fa2a3dccf9960459f666fec8a166289401e";

    @Test
    void everyActuatorEndpointButHealthAndTheDeclaredPrefixesNeedTheToken() {
        AdminCredential filter = new AdminCredential(BearerDigest.ofHex(LOCAL_ADMIN_TOKEN_SHA256), "/actuator",
                List.of("/admin/"));

        assertThat(filter.isProtected("/actuator")).isTrue();
        assertThat(filter.isProtected("/actuator/")).isTrue();
        assertThat(filter.isProtected("/actuator/prometheus")).isTrue();
        assertThat(filter.isProtected("/actuator/env")).isTrue();
        assertThat(filter.isProtected("/actuator/healthdump")).isTrue();
        assertThat(filter.isProtected("/admin/dead-letters")).isTrue();

        assertThat(filter.isProtected("/actuator/health")).isFalse();
        assertThat(filter.isProtected("/actuator/health/readiness")).isFalse();
        assertThat(filter.isProtected("/actuatorx")).isFalse();
        assertThat(filter.isProtected("/payments")).isFalse();
        assertThat(filter.isProtected("/readyz")).isFalse();
    }

    @Test
    void anActuatorAtTheRootProtectsEverythingButHealth() {
        AdminCredential filter = new AdminCredential(null, "/", List.of());

        assertThat(filter.isProtected("/prometheus")).isTrue();
        assertThat(filter.isProtected("/health")).isFalse();
    }

    @Test
    void theDigestMatchesOnlyItsTokenAndOnlyTheBearerScheme() {
        BearerDigest digest = BearerDigest.ofHex(LOCAL_ADMIN_TOKEN_SHA256);

        assertThat(digest.matches("local-admin-token")).isTrue();
        assertThat(digest.matches("local-admin-token ")).isFalse();
        assertThat(digest.matches(null)).isFalse();
        assertThat(BearerDigest.tokenOf("Bearer local-admin-token")).isEqualTo("local-admin-token");
        assertThat(BearerDigest.tokenOf("bearer local-admin-token")).isEqualTo("local-admin-token");
        assertThat(BearerDigest.tokenOf("Basic bG9jYWw6YWRtaW4=")).isNull();
        assertThat(BearerDigest.tokenOf("Bearer ")).isNull();
        assertThatThrownBy(() -> BearerDigest.ofHex("not-hex")).isInstanceOf(IllegalArgumentException.class);
    }
}
