package dev.outbox.security.edge;

import java.util.Map;

import dev.outbox.security.RawHttp;
import dev.outbox.security.RawHttp.Response;
import dev.outbox.security.Spellings;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.outbox.security.edge.EdgeAssertions.assertNoSpellingPasses;
import static dev.outbox.security.edge.EdgeAssertions.assertUnauthenticated;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay's shape: one port, all of it for operators. No spelling of an operator path gets through without the
 * admin token, and none runs the requeue.
 */
@SpringBootTest(
        classes = EdgeTestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "server.address=127.0.0.1",
            "management.endpoints.web.exposure.include=health,info",
            "management.endpoint.health.show-details=when-authorized",
            "management.endpoint.health.roles=ADMIN",
            "admin.paths=/**",
            "admin.token-sha256=bc32a9a66697ce5242e5517f4a801fa2a3dccf9960459f666fec8a166289401e"
        })
class OnePortEdgeIntegrationTests {

    @LocalServerPort
    int port;

    @Test
    void theOperatorPathsAndTheActuatorNeedTheTokenInEverySpelling() {
        assertUnauthenticated(RawHttp.get(port, "/admin/things", null), "admin");
        assertThat(RawHttp.get(port, "/admin/things", EdgeTestApplication.ADMIN_TOKEN)
                        .status())
                .isEqualTo(200);
        assertThat(RawHttp.get(port, "/actuator/health", null).status()).isEqualTo(200);
        assertNoSpellingPasses(port, "/admin/things", "things");
        assertNoSpellingPasses(port, "/actuator/info", "\"app\"");
        int before = EdgeTestApplication.Endpoints.requeued.get();
        for (String target : Spellings.of("/admin/things/requeue")) {
            Response r = RawHttp.send(port, "POST", target, Map.of(), "");
            assertThat(r.status()).as(target).isBetween(400, 499);
        }
        assertThat(EdgeTestApplication.Endpoints.requeued.get())
                .as("requeues run without a token")
                .isEqualTo(before);
    }
}
