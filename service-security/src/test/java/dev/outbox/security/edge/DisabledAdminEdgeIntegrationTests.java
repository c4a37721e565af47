package dev.outbox.security.edge;

import dev.outbox.security.RawHttp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.outbox.security.edge.EdgeAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without an admin token configured the operator endpoints are disabled (403), never open.
 */
@SpringBootTest(
        classes = EdgeTestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "server.address=127.0.0.1",
            "management.endpoints.web.exposure.include=health,info",
            "admin.paths=/admin/**",
            "admin.token-sha256="
        })
class DisabledAdminEdgeIntegrationTests {

    @LocalServerPort
    int port;

    @Test
    void theOperatorEndpointsAreDisabledNeverOpen() {
        assertProblem(RawHttp.get(port, "/admin/things", null), 403, "admin:disabled");
        assertProblem(RawHttp.get(port, "/actuator/info", "anything"), 403, "admin:disabled");
        assertThat(RawHttp.get(port, "/actuator/health", null).status()).isEqualTo(200);
    }
}
