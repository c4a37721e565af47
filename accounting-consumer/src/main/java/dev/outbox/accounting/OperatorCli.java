package dev.outbox.accounting;

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
import java.util.Set;

import dev.outbox.accounting.deadletter.DeadLetterCommands;
import dev.outbox.accounting.ledger.ParkedCommands;
import dev.outbox.accounting.reconcile.ReconcileCommands;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operators' command line for the consumer's dead letters and parked events, run from the consumer's own jar
 * ({@code java -jar accounting-consumer-*-exec.jar dlt list}): a thin client of its {@code /admin} endpoints with the
 * admin token, reading their answers into the very records the endpoints write and printing them as readable lines.
 * It holds no credential but the HTTP token, and decides nothing the endpoints do not. The commands live beside their
 * endpoints ({@link DeadLetterCommands}, {@link ParkedCommands}); this class parses the arguments and talks HTTP.
 */
public final class OperatorCli {

    static final String USAGE = """
            usage: dlt list [--reason TEXT] [--cause CAUSE] [--type EVENT_TYPE] [--after INSTANT] [--before INSTANT]
                            [--limit N]
                   dlt groups [--limit N]
                   dlt show PARTITION@OFFSET [--payload]
                   dlt replay PARTITION@OFFSET
                   dlt replay [--reason TEXT] [--cause CAUSE] [--type EVENT_TYPE] [--after INSTANT] [--before INSTANT]
                              | --all   [--dry-run | --expect DIGEST]
                   dlt replays [--limit N]
                   parked list [--payment PAYMENT_ID]
                   parked skip PAYMENT_ID --from VERSION --to VERSION --operator NAME --reason TEXT
                   parked audit [--payment PAYMENT_ID]
                   reconcile status
            options: --url URL (env ACCOUNTING_ADMIN_URL, default http://127.0.0.1:8082)
                     --token TOKEN (env ACCOUNTING_ADMIN_TOKEN, default the local run's admin token)""";

    /** The local run's admin token (its SHA-256 is the default of {@code ACCOUNTING_ADMIN_TOKEN_SHA256}). */
    private static final String LOCAL_ADMIN_TOKEN = "local-admin-token";

    private static final Set<String> FLAGS = Set.of("all", "payload", "dry-run");
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The first words of a command line this class runs instead of the service. */
    public static boolean isCommand(String[] args) {
        return args.length > 0 && (args[0].equals("dlt") || args[0].equals("parked") || args[0].equals("reconcile"));
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
            if (arg.startsWith("--") && FLAGS.contains(arg.substring(2))) {
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
        Admin admin = new Admin(
                url != null ? url : env.getOrDefault("ACCOUNTING_ADMIN_URL", "http://127.0.0.1:8082"),
                token != null ? token : env.getOrDefault("ACCOUNTING_ADMIN_TOKEN", LOCAL_ADMIN_TOKEN));
        String command = String.join(" ", positional.subList(0, Math.min(2, positional.size())));
        List<String> rest = positional.size() > 2 ? positional.subList(2, positional.size()) : List.of();
        try {
            if (command.startsWith("dlt ")) {
                return DeadLetterCommands.run(command.substring(4), rest, options, admin, out);
            }
            if (command.startsWith("parked ")) {
                return ParkedCommands.run(command.substring(7), rest, options, admin, out);
            }
            if (command.startsWith("reconcile ")) {
                return ReconcileCommands.run(command.substring(10), admin, out);
            }
            return usage(err, command.isEmpty() ? "no command" : "unknown command: " + command);
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

    private static int usage(PrintStream err, String problem) {
        err.println(problem);
        err.println(USAGE);
        return 2;
    }

    /** The consumer's {@code /admin} endpoints, with the token; answers read as the endpoints' own records. */
    public static final class Admin {
        private final String url;
        private final String token;

        private Admin(String url, String token) {
            this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
            this.token = token;
        }

        public <T> T get(String target, TypeReference<T> type) throws IOException, InterruptedException {
            return JSON.treeToValue(send(request(target).GET()), JSON.constructType(type));
        }

        /** @param body serialized as JSON, or {@code null} for an empty POST */
        public <T> T post(String target, Object body, Class<T> type) throws IOException, InterruptedException {
            HttpRequest.Builder request = request(target);
            return JSON.treeToValue(
                    send(
                            body == null
                                    ? request.POST(HttpRequest.BodyPublishers.noBody())
                                    : request.header("Content-Type", "application/json")
                                            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))),
                    type);
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
                throw new Refused(
                        response.statusCode() + " " + body.path("title").asString("") + ": "
                                + body.path("detail").asString(""));
            }
            return body;
        }
    }

    /**
     * The options an endpoint knows, as its query parameters ({@code --type} is {@code eventType}, {@code --payment}
     * is {@code paymentId}, {@code --dry-run} is {@code dryRun}); any other option is a usage error.
     */
    public static String query(Map<String, String> options, String... known) {
        Map<String, String> names = Map.of("type", "eventType", "payment", "paymentId", "dry-run", "dryRun");
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

    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** {@code null} as {@code -}: a field the record lacked. */
    public static String text(Object value) {
        return value == null ? "-" : value.toString();
    }

    private static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }
}
