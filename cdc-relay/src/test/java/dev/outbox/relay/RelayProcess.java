package dev.outbox.relay;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.outbox.local.JavaProcess;
import dev.outbox.local.LocalCredentials;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.awaitility.Awaitility.await;

/** A relay in its own JVM, on this test's class path, that a test can SIGKILL. */
public final class RelayProcess implements AutoCloseable {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Map<String, String> env;
    private final Path log;
    private final int port;
    private Process process;
    private boolean c1Only;

    public RelayProcess(Map<String, String> env, String name) {
        this.env = env;
        this.port = Integer.parseInt(env.get("RELAY_HTTP_PORT"));
        this.log = Path.of("target", "relay-" + name + ".log");
    }

    /**
     * Without the C2 compiler: the relay starts in about 3.3 s instead of 4.8 s here, and runs its hot code slower.
     * For tests of what happens, never for a figure (the benchmarks, the soak and the tests whose timings the docs
     * quote run the JVM as users do).
     */
    public RelayProcess c1Only() {
        this.c1Only = true;
        return this;
    }

    public RelayProcess start() {
        JavaProcess.Builder jvm = JavaProcess.builder(RelayApplication.class.getName())
                .env(env)
                .heap("384m")
                .logTo(log);
        if (c1Only) {
            jvm.jvmArg("-XX:TieredStopAtLevel=1");
        }
        process = jvm.start();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> health() != null);
        return this;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook, no offset flush, no goodbye to PostgreSQL or Kafka. */
    public void kill() {
        if (process != null) {
            JavaProcess.kill(process);
            process = null;
        }
    }

    /**
     * SIGSTOP: the process stops answering while every connection it holds stays open, as a leader does in a long
     * pause or behind a partition. {@link #kill()} ends it.
     */
    public void freeze() throws IOException, InterruptedException {
        Process stop = new ProcessBuilder("kill", "-STOP", String.valueOf(process.pid())).start();
        if (stop.waitFor() != 0) {
            throw new IllegalStateException("kill -STOP " + process.pid() + " failed");
        }
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** "leader", "standby" or "starting"; {@code null} while the process does not answer. */
    public String role() {
        JsonNode health = health();
        return health == null
                ? null
                : health.path("components")
                        .path("cdcSlot")
                        .path("details")
                        .path("role")
                        .asString(null);
    }

    public boolean streaming() {
        JsonNode health = health();
        return health != null
                && health.path("components")
                        .path("cdcSlot")
                        .path("details")
                        .path("streaming")
                        .asBoolean(false);
    }

    /** The relay's meters from its Prometheus endpoint, each name summed over its tags. */
    public Map<String, Double> meters() throws IOException, InterruptedException {
        Map<String, Double> meters = new HashMap<>();
        for (String line : samples()) {
            String name = line.substring(0, line.indexOf(line.contains("{") ? '{' : ' '));
            meters.merge(name, value(line), Double::sum);
        }
        return meters;
    }

    /** One meter from the Prometheus endpoint, summed over the series whose tag {@code tag} is {@code value}. */
    public double meter(String name, String tag, String value) throws IOException, InterruptedException {
        String series = name + "{";
        String label = tag + "=\"" + value + "\"";
        double sum = 0;
        for (String line : samples()) {
            if (line.startsWith(series)
                    && line.substring(series.length(), line.lastIndexOf('}')).contains(label)) {
                sum += value(line);
            }
        }
        return sum;
    }

    /** The sample lines of the relay's Prometheus endpoint (no comments, no blank lines). */
    private List<String> samples() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/actuator/prometheus");
        if (response.statusCode() != 200) {
            throw new IllegalStateException("the relay's metrics answered " + response.statusCode());
        }
        return response.body()
                .lines()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .toList();
    }

    private static double value(String sample) {
        return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
    }

    private JsonNode health() {
        try {
            HttpResponse<String> response = get("/actuator/health");
            return response.statusCode() == 200 || response.statusCode() == 503 ? JSON.readTree(response.body()) : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** A management endpoint, with the local admin token. */
    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .header("Authorization", "Bearer " + LocalCredentials.ADMIN_TOKEN)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        kill();
    }
}
