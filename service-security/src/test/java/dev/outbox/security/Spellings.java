package dev.outbox.security;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Every way an attacker may spell a path so that one layer (a filter, a matcher) reads it differently from the one
 * that routes it: path parameters, percent-encoding of any character (upper and lower hex, double encoding),
 * encoded and doubled separators, dot segments, trailing slashes, backslashes, NUL, and case.
 */
public final class Spellings {

    private Spellings() {}

    /** @param path a plain path such as {@code /actuator/prometheus} */
    public static Set<String> of(String path) {
        Set<String> spellings = new LinkedHashSet<>();
        String[] segments = path.substring(1).split("/");
        for (int i = 0; i < segments.length; i++) {
            spellings.add(withSegment(segments, i, segments[i] + ";x"));
            spellings.add(withSegment(segments, i, segments[i] + ";jsessionid=1"));
        }
        for (int i = 1; i < path.length(); i++) {
            char c = path.charAt(i);
            String hex = String.format("%%%02X", (int) c);
            spellings.add(path.substring(0, i) + hex + path.substring(i + 1));
            spellings.add(path.substring(0, i) + hex.toLowerCase(Locale.ROOT) + path.substring(i + 1));
        }
        StringBuilder all = new StringBuilder();
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            all.append(b == '/' ? "/" : String.format("%%%02X", b));
        }
        spellings.add(all.toString());
        spellings.add("/%25" + String.format("%02X", (int) path.charAt(1)) + path.substring(2));
        spellings.add(path.replaceFirst("/", "/./"));
        spellings.add(path.replace("/", "/./"));
        spellings.add("/x/.." + path);
        spellings.add("/actuator/health/.." + path);
        spellings.add("/actuator/health/%2e%2e" + path);
        spellings.add("/" + path);
        spellings.add(path.replace("/", "//"));
        spellings.add(path + "/");
        spellings.add(path + "/.");
        spellings.add(path.toUpperCase(Locale.ROOT));
        spellings.add(Character.toUpperCase(path.charAt(1)) + path.substring(2));
        spellings.add("/" + Character.toUpperCase(path.charAt(1)) + path.substring(2));
        spellings.add(path.replace("/", "\\"));
        spellings.add(path.replace("/", "%5C"));
        spellings.add(path.replaceFirst("/(?=[^/]*$)", "%2F"));
        spellings.add(path.replaceFirst("/(?=[^/]*$)", "%2f"));
        spellings.add(path + "%00");
        spellings.add(path + "%00.json");
        spellings.add(path + ".json");
        spellings.add(path + "?x=1");
        spellings.add(path + "#frag");
        spellings.remove(path);
        spellings.remove(path + "?x=1");
        return spellings;
    }

    /**
     * Sends {@code method} to every spelling of the path of {@code target} (its query kept) without a credential, then
     * with {@code otherCredential} (one that is not the operator's): each answer is a client error as a problem
     * document that shows nothing internal. Whether anything changed is the caller's to check.
     *
     * @param body a JSON body, or {@code null}
     */
    public static void assertEveryRefused(int port, String method, String target, String otherCredential, String body) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        String rest = query < 0 ? "" : target.substring(query);
        java.util.Map<String, String> json =
                body == null ? java.util.Map.of() : java.util.Map.of("Content-Type", "application/json");
        for (String spelling : of(path)) {
            for (String credential : new String[] {null, otherCredential}) {
                java.util.Map<String, String> headers = new java.util.HashMap<>(json);
                if (credential != null) {
                    headers.put("Authorization", "Bearer " + credential);
                }
                RawHttp.Response r = RawHttp.send(port, method, spelling + rest, headers, body);
                org.assertj.core.api.Assertions.assertThat(r.status())
                        .as(method + " " + spelling + rest + " -> " + r)
                        .isBetween(400, 499);
                org.assertj.core.api.Assertions.assertThat(r.isProblem())
                        .as(method + " " + spelling + rest + " -> " + r)
                        .isTrue();
                org.assertj.core.api.Assertions.assertThat(r.body())
                        .as(spelling)
                        .doesNotContain("Exception")
                        .doesNotContain("at dev.");
            }
        }
    }

    private static String withSegment(String[] segments, int index, String replacement) {
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            path.append('/').append(i == index ? replacement : segments[i]);
        }
        return path.toString();
    }
}
