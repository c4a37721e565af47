package dev.outbox.security.edge;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.outbox.security.RawHttp;
import dev.outbox.security.RawHttp.Response;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.outbox.security.edge.EdgeAssertions.assertNoSpellingPasses;
import static dev.outbox.security.edge.EdgeAssertions.assertProblem;
import static dev.outbox.security.edge.EdgeAssertions.assertUnauthenticated;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared edge from outside, over raw sockets, with the actuator on its own port: the operator chain, every
 * attacker spelling of every protected path, and a problem document for every refusal of every layer on both ports.
 */
@SpringBootTest(
        classes = EdgeTestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "server.address=127.0.0.1",
            "management.server.port=0",
            "management.server.address=127.0.0.1",
            "server.max-http-request-header-size=16KB",
            "management.endpoints.web.exposure.include=health,info,env",
            "management.endpoint.health.show-details=when-authorized",
            "management.endpoint.health.roles=ADMIN",
            "management.endpoint.health.probes.enabled=true",
            "admin.token-sha256=bc32a9a66697ce5242e5517f4a801fa2a3dccf9960459f666fec8a166289401e"
        })
class ManagementPortEdgeIntegrationTests {

    @LocalServerPort
    int api;

    @LocalManagementPort
    int management;

    @Test
    void everyActuatorEndpointButHealthNeedsTheAdminToken() {
        for (String path : List.of(
                "/actuator",
                "/actuator/",
                "/actuator/info",
                "/actuator/env",
                "/actuator/healthdump",
                "/anything-else")) {
            assertUnauthenticated(RawHttp.get(management, path, null), "admin");
            assertUnauthenticated(RawHttp.get(management, path, "not-the-admin-token"), "admin");
            assertUnauthenticated(RawHttp.get(management, path, EdgeTestApplication.CLIENT_KEY), "admin");
        }
        assertThat(RawHttp.get(management, "/actuator/info", EdgeTestApplication.ADMIN_TOKEN)
                        .status())
                .isEqualTo(200);
        assertThat(RawHttp.get(management, "/actuator/health", null).status()).isEqualTo(200);
        assertThat(RawHttp.get(management, "/actuator/health/readiness", null).status())
                .isEqualTo(200);
    }

    @Test
    void onlyTheBearerSchemeAndTheExactTokenAuthenticate() {
        assertThat(RawHttp.send(
                                management,
                                "GET",
                                "/actuator/info",
                                Map.of("Authorization", "bearer " + EdgeTestApplication.ADMIN_TOKEN),
                                null)
                        .status())
                .isEqualTo(200);
        for (String header : List.of(
                "Basic bG9jYWw6YWRtaW4=",
                "Bearer ",
                "Bearer",
                "Token " + EdgeTestApplication.ADMIN_TOKEN,
                "Bearer " + EdgeTestApplication.ADMIN_TOKEN + "x",
                "Bearer " + EdgeTestApplication.ADMIN_TOKEN.toUpperCase())) {
            assertUnauthenticated(
                    RawHttp.send(management, "GET", "/actuator/info", Map.of("Authorization", header), null), "admin");
        }
    }

    @Test
    void anonymousHealthTellsTheStatusOnlyTheAdminSeesTheDetails() {
        Response anonymous = RawHttp.get(management, "/actuator/health", null);
        assertThat(anonymous.body()).contains("\"status\":\"UP\"").doesNotContain("components", "diskSpace", "/");
        assertThat(RawHttp.get(management, "/actuator/health", EdgeTestApplication.ADMIN_TOKEN)
                        .body())
                .contains("diskSpace");
    }

    @Test
    void noSpellingOfAProtectedPathGetsThroughWithoutTheToken() {
        assertNoSpellingPasses(management, "/actuator/info", "\"app\"");
        assertNoSpellingPasses(management, "/actuator/env", "propertySources");
        assertNoSpellingPasses(api, "/api/whoami", "client");
    }

    @Test
    void theApiPortHasNoActuatorAndAClientKeyOpensOnlyTheApi() {
        assertThat(RawHttp.get(api, "/api/whoami", EdgeTestApplication.CLIENT_KEY)
                        .body())
                .contains("acme");
        assertUnauthenticated(RawHttp.get(api, "/api/whoami", null), "payments");
        assertUnauthenticated(RawHttp.get(api, "/api/whoami", EdgeTestApplication.ADMIN_TOKEN), "payments");
        assertProblem(RawHttp.get(api, "/actuator/info", EdgeTestApplication.ADMIN_TOKEN), 404, "http:not-found");
        assertProblem(RawHttp.get(api, "/nothing-here", EdgeTestApplication.CLIENT_KEY), 404, "http:not-found");
        assertProblem(RawHttp.get(api, "/api/nothing-here", EdgeTestApplication.CLIENT_KEY), 404, "http:not-found");
    }

    @Test
    void everyLayersRefusalIsAProblemDocumentOnBothPorts() {
        for (int port : new int[] {api, management}) {
            assertProblem(RawHttp.get(port, "/actuator;x/info", null), 400, "http:request-rejected");
            assertProblem(RawHttp.get(port, "/a/../b", null), 400, "http:request-rejected");
            assertProblem(RawHttp.get(port, "/a%00b", null), 400, "http:bad-request");
            assertProblem(RawHttp.get(port, "/a%2Fb", null), 400, "http:bad-request");
            assertProblem(
                    RawHttp.sendBytes(
                            port, ("GET /a<b>|{} HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)),
                    400,
                    "http:bad-request");
            assertProblem(
                    RawHttp.send(port, "GET", "/x", Map.of("X-Big", "a".repeat(20_000)), null),
                    400,
                    "http:bad-request");
            assertProblem(RawHttp.send(port, "FOO", "/x", Map.of(), null), 400, "http:request-rejected");
        }
        assertProblem(
                RawHttp.send(
                        api,
                        "DELETE",
                        "/api/whoami",
                        Map.of("Authorization", "Bearer " + EdgeTestApplication.CLIENT_KEY),
                        null),
                405,
                "http:method-not-allowed");
        assertProblem(RawHttp.get(management, "/actuator/health/nothing", null), 404, "http:not-found");
        assertProblem(
                RawHttp.get(management, "/actuator/nothing", EdgeTestApplication.ADMIN_TOKEN), 404, "http:not-found");
    }
}
