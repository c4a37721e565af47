package dev.outbox.security.edge;

import dev.outbox.security.RawHttp;
import dev.outbox.security.RawHttp.Response;
import dev.outbox.security.Spellings;

import static org.assertj.core.api.Assertions.assertThat;

/** What every edge test asserts about a refusal: the status, a problem document, nothing internal. */
final class EdgeAssertions {

    private EdgeAssertions() {}

    static void assertNoSpellingPasses(int port, String path, String secret) {
        for (String target : Spellings.of(path)) {
            Response r = RawHttp.get(port, target, null);
            assertThat(r.status()).as(target + " -> " + r).isBetween(400, 499);
            assertThat(r.isProblem()).as(target + " -> " + r).isTrue();
            assertThat(r.body())
                    .as(target)
                    .doesNotContain(secret)
                    .doesNotContain("Exception")
                    .doesNotContain("<html");
        }
    }

    static void assertUnauthenticated(Response r, String namespace) {
        assertProblem(r, 401, namespace + ":unauthenticated");
        assertThat(r.header("www-authenticate")).isEqualTo("Bearer");
    }

    static void assertProblem(Response r, int status, String type) {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        assertThat(r.isProblem()).as(r.toString()).isTrue();
        assertThat(r.body())
                .as(r.toString())
                .contains("\"type\":\"urn:problem-type:" + type + "\"")
                .contains("\"status\":" + status)
                .doesNotContain("Exception")
                .doesNotContain("at dev.");
    }
}
