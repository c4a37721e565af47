package dev.outbox.infra;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The operators' command line for accounting-consumer's dead letters and parked events: a thin client of its
 * {@code /admin} endpoints, with the admin token, printing what they answer as readable lines. It holds no
 * credential but the HTTP token, and decides nothing the endpoints do not.
 *
 * <pre>
 * dlt list [--reason TEXT] [--type EVENT_TYPE] [--after INSTANT] [--before INSTANT] [--limit N]
 * dlt show PARTITION@OFFSET [--payload]
 * dlt replay PARTITION@OFFSET | dlt replay [--reason ..] [--type ..] [--after ..] [--before ..] | dlt replay --all
 * parked list [--payment ID]
 * parked skip PAYMENT_ID --from VERSION --to VERSION --operator NAME --reason TEXT
 * parked audit [--payment ID]
 * common: --url URL (ACCOUNTING_ADMIN_URL, default http://127.0.0.1:8082)
 *         --token TOKEN (ACCOUNTING_ADMIN_TOKEN, default the local run's local-admin-token)
 * </pre>
 */
public final class ConsumerAdmin {

    static final String USAGE = """
            usage: dlt list [--reason TEXT] [--type EVENT_TYPE] [--after INSTANT] [--before INSTANT] [--limit N]
                   dlt show PARTITION@OFFSET [--payload]
                   dlt replay PARTITION@OFFSET
                   dlt replay [--reason TEXT] [--type EVENT_TYPE] [--after INSTANT] [--before INSTANT] | --all
                   parked list [--payment PAYMENT_ID]
                   parked skip PAYMENT_ID --from VERSION --to VERSION --operator NAME --reason TEXT
                   parked audit [--payment PAYMENT_ID]
            options: --url URL (env ACCOUNTING_ADMIN_URL, default http://127.0.0.1:8082)
                     --token TOKEN (env ACCOUNTING_ADMIN_TOKEN, default local-admin-token)""";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String url;
    private final String token;
    private final PrintStream out;
    private final PrintStream err;

    private ConsumerAdmin(String url, String token, PrintStream out, PrintStream err) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.token = token;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int status = run(List.of(args), System.getenv(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * @param args {@code dlt ...} or {@code parked ...}
     * @return the exit status: 0, 1 when the consumer refused or failed, 2 for a usage error
     */
    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> positional = new ArrayList<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--all") || arg.equals("--payload")) {
                options.put(arg.substring(2), "true");
            } else if (arg.startsWith("--") && i + 1 < args.size()) {
                options.put(arg.substring(2), args.get(++i));
            } else if (arg.startsWith("--")) {
                return usage(err, arg + " needs a value");
            } else {
                positional.add(arg);
            }
        }
        String url = options.remove("url");
        String token = options.remove("token");
        ConsumerAdmin admin = new ConsumerAdmin(
                url != null ? url : env.getOrDefault("ACCOUNTING_ADMIN_URL", "http://127.0.0.1:8082"),
                token != null ? token : env.getOrDefault("ACCOUNTING_ADMIN_TOKEN", "local-admin-token"),
                out,
                err);
        String command = String.join(" ", positional.subList(0, Math.min(2, positional.size())));
        List<String> rest = positional.size() > 2 ? positional.subList(2, positional.size()) : List.of();
        try {
            return switch (command) {
                case "dlt list" -> admin.dltList(options);
                case "dlt show" -> rest.size() == 1 ? admin.dltShow(rest.get(0), options) : usage(err, "one record");
                case "dlt replay" -> admin.dltReplay(rest, options);
                case "parked list" -> admin.parkedList(options);
                case "parked skip" -> rest.size() == 1 ? admin.parkedSkip(rest.get(0), options) : usage(err, "one id");
                case "parked audit" -> admin.parkedAudit(options);
                default -> usage(err, command.isEmpty() ? "no command" : "unknown command: " + command);
            };
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        } catch (Refused e) {
            err.println(e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("could not reach " + admin.url + ": " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private int dltList(Map<String, String> options) throws IOException, InterruptedException {
        JsonNode letters = get("/admin/dead-letters" + query(options, "reason", "type", "after", "before", "limit"));
        if (letters.isEmpty()) {
            out.println("no dead letters" + (options.isEmpty() ? "" : " match"));
        }
        for (JsonNode d : letters) {
            out.printf(
                    "%s@%s  %s  age %ss  %s v%s  payment %s  event %s  from %s-%s@%s%s%n    reason: %s%n",
                    d.path("partition").asText(),
                    d.path("offset").asText(),
                    d.path("deadLetteredAt").asText(),
                    d.path("ageSeconds").asText(),
                    text(d, "eventType"),
                    text(d, "aggregateVersion"),
                    text(d, "paymentId"),
                    text(d, "eventId"),
                    text(d, "originalTopic"),
                    text(d, "originalPartition"),
                    text(d, "originalOffset"),
                    replayed(d),
                    text(d, "reason"));
        }
        return 0;
    }

    private int dltShow(String position, Map<String, String> options) throws IOException, InterruptedException {
        JsonNode d = get("/admin/dead-letters/" + path(position)
                + (options.containsKey("payload") ? "?includePayload=true" : ""));
        out.printf(
                """
                dead letter      %s@%s (dead-lettered %s, %ss ago)%s
                reason           %s
                failed at        %s-%s@%s
                event            %s %s v%s, payment %s
                """,
                d.path("partition").asText(),
                d.path("offset").asText(),
                d.path("deadLetteredAt").asText(),
                d.path("ageSeconds").asText(),
                replayed(d),
                text(d, "reason"),
                text(d, "originalTopic"),
                text(d, "originalPartition"),
                text(d, "originalOffset"),
                text(d, "eventId"),
                text(d, "eventType"),
                text(d, "aggregateVersion"),
                text(d, "paymentId"));
        for (JsonNode h : d.path("history")) {
            out.println("earlier          " + h.asText());
        }
        out.println("payload          " + text(d, "payload"));
        return 0;
    }

    private int dltReplay(List<String> positions, Map<String, String> options)
            throws IOException, InterruptedException {
        JsonNode result;
        if (positions.size() == 1 && options.isEmpty()) {
            result = post("/admin/dead-letters/" + path(positions.get(0)) + "/replay", null);
        } else if (positions.isEmpty() && !options.isEmpty()) {
            result = post(
                    "/admin/dead-letters/replay" + query(options, "reason", "type", "after", "before", "all"), null);
        } else {
            throw new IllegalArgumentException("replay one record, a selection, or --all");
        }
        out.printf(
                "replayed %s, already replayed before %s%n",
                result.path("replayed").asText(), result.path("alreadyReplayed").asText());
        return 0;
    }

    private int parkedList(Map<String, String> options) throws IOException, InterruptedException {
        JsonNode payments = get("/admin/parked" + query(options, "payment"));
        if (payments.isEmpty()) {
            out.println("no parked events");
        }
        for (JsonNode p : payments) {
            out.printf(
                    "payment %s  last applied v%s  missing v%s..v%s  oldest parked %ss%n",
                    p.path("paymentId").asText(),
                    p.path("lastAppliedVersion").asText(),
                    p.path("missingFrom").asText(),
                    p.path("missingTo").asText(),
                    p.path("oldestAgeSeconds").asText());
            for (JsonNode e : p.path("events")) {
                out.printf(
                        "    v%s %s event %s parked %s (%ss)%n",
                        e.path("version").asText(),
                        e.path("eventType").asText(),
                        e.path("eventId").asText(),
                        e.path("parkedAt").asText(),
                        e.path("ageSeconds").asText());
            }
        }
        return 0;
    }

    private int parkedSkip(String payment, Map<String, String> options) throws IOException, InterruptedException {
        for (String required : List.of("from", "to", "operator", "reason")) {
            if (!options.containsKey(required)) {
                throw new IllegalArgumentException("parked skip needs --" + required);
            }
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("fromVersion", Long.parseLong(options.get("from")));
        body.put("toVersion", Long.parseLong(options.get("to")));
        body.put("operator", options.get("operator"));
        body.put("reason", options.get("reason"));
        JsonNode r = post("/admin/parked/" + encode(payment) + "/skip", body.toString());
        out.printf(
                "skipped v%s..v%s of payment %s; %s parked events applied; audited: %s (%s) at %s: %s%n",
                r.path("skippedFrom").asText(),
                r.path("skippedTo").asText(),
                r.path("paymentId").asText(),
                r.path("applied").asText(),
                r.path("operator").asText(),
                r.path("principal").asText(),
                r.path("resolvedAt").asText(),
                r.path("reason").asText());
        return 0;
    }

    private int parkedAudit(Map<String, String> options) throws IOException, InterruptedException {
        JsonNode rows = get("/admin/gap-resolutions" + query(options, "payment"));
        if (rows.isEmpty()) {
            out.println("no gaps skipped");
        }
        for (JsonNode r : rows) {
            out.printf(
                    "%s  payment %s  skipped v%s..v%s  %s parked applied  by %s (%s): %s%n",
                    r.path("resolvedAt").asText(),
                    r.path("paymentId").asText(),
                    r.path("skippedFrom").asText(),
                    r.path("skippedTo").asText(),
                    r.path("applied").asText(),
                    r.path("operator").asText(),
                    r.path("principal").asText(),
                    r.path("reason").asText());
        }
        return 0;
    }

    private JsonNode get(String target) throws IOException, InterruptedException {
        return send(request(target).GET());
    }

    private JsonNode post(String target, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = request(target);
        return send(
                json == null
                        ? request.POST(HttpRequest.BodyPublishers.noBody())
                        : request.header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private HttpRequest.Builder request(String target) {
        return HttpRequest.newBuilder(URI.create(url + target))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token)
                .header("Accept", "application/json");
    }

    private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
        if (response.statusCode() / 100 != 2) {
            throw new Refused(response.statusCode() + " " + body.path("title").asText("") + ": "
                    + body.path("detail").asText(""));
        }
        return body;
    }

    /** The options the endpoint knows, by its parameter names. */
    private static String query(Map<String, String> options, String... known) {
        Map<String, String> names = Map.of("type", "eventType", "payment", "paymentId");
        StringBuilder query = new StringBuilder();
        for (Map.Entry<String, String> option : options.entrySet()) {
            if (!List.of(known).contains(option.getKey())) {
                throw new IllegalArgumentException("unknown option --" + option.getKey());
            }
            query.append(query.isEmpty() ? '?' : '&')
                    .append(names.getOrDefault(option.getKey(), option.getKey()))
                    .append('=')
                    .append(encode(option.getValue()));
        }
        return query.toString();
    }

    /** {@code 1@17} -> {@code 1/17} */
    private static String path(String position) {
        String[] parts = position.split("@", -1);
        if (parts.length != 2 || !parts[0].matches("\\d{1,9}") || !parts[1].matches("\\d{1,18}")) {
            throw new IllegalArgumentException("a dead letter is PARTITION@OFFSET, e.g. 1@17");
        }
        return parts[0] + "/" + parts[1];
    }

    private static String replayed(JsonNode d) {
        JsonNode r = d.path("replayed");
        return r.isObject()
                ? "  REPLAYED by " + r.path("by").asText() + " at "
                        + r.path("at").asText() + " to partition "
                        + r.path("targetPartition").asText() + "@"
                        + r.path("targetOffset").asText()
                : "";
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? "-" : value.asText();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static int usage(PrintStream err, String problem) {
        err.println(problem);
        err.println(USAGE);
        return 2;
    }

    private static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }
}
