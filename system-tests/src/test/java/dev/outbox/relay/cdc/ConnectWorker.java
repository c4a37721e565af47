package dev.outbox.relay.cdc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.outbox.contract.CloudEventHeaders;
import dev.outbox.contract.EventSchemas;
import dev.outbox.contract.OutboxColumns;
import dev.outbox.contract.Topics;
import dev.outbox.local.JavaProcess;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import io.debezium.connector.postgresql.PostgresConnector;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.utils.AppInfoParser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a user would run instead of the relay: Debezium's PostgreSQL connector and Outbox Event Router on a Kafka
 * Connect worker (standalone, file offsets, its own JVM, {@code connect-runtime} of the broker's version and Debezium
 * of the relay's from Maven Central, resolved by {@code connect-worker/pom.xml}). The connector and router settings
 * are generated from the relay's own {@link DebeziumSettings}, the producer's from {@link
 * KafkaPublisher#producerSettings}, and the converters are strings for key, value and headers, so that the records
 * have the relay's shape and cannot drift from it. Used by the relay-against-Connect benchmark and the end-to-end
 * benchmark's Connect variant.
 */
public final class ConnectWorker {

    public static final String CONNECTOR = "outbox-relay";
    /** The relay's JVM flags (RelayProcess's): -Xmx384m -XX:+UseSerialGC -Xshare:auto. */
    public static final List<String> JVM_FLAGS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-Xshare:auto");

    private final Path dir;
    private final String classpath;
    private final int restPort;
    private final List<String> extraJvmOptions;
    private Process process;

    /**
     * Writes the worker's and the connector's settings to {@code dir}; {@link #start()} runs the worker.
     *
     * @param kafkaClient     the Kafka client's authentication (security.protocol, sasl.*), as the relay gets it
     * @param extraJvmOptions more options for the worker's JVM, e.g. a flight recording
     */
    public ConnectWorker(
            Path dir,
            String classpath,
            int restPort,
            String bootstrapServers,
            Map<String, String> kafkaClient,
            Properties connector,
            List<String> extraJvmOptions) {
        this.dir = dir;
        this.classpath = classpath;
        this.restPort = restPort;
        this.extraJvmOptions = extraJvmOptions;
        try {
            Files.createDirectories(dir);
            store(workerSettings(dir, restPort, bootstrapServers, kafkaClient), dir.resolve("worker.properties"));
            store(connector, dir.resolve("connector.properties"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the worker and returns when its one task runs. */
    public void start() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.addAll(extraJvmOptions);
        command.addAll(List.of("-cp", classpath, "org.apache.kafka.connect.cli.ConnectStandalone"));
        command.add(dir.resolve("worker.properties").toString());
        command.add(dir.resolve("connector.properties").toString());
        try {
            // in a session of its own, as the relay it is measured against (JavaProcess)
            process = new ProcessBuilder(JavaProcess.inOwnSession(command))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            dir.resolve("connect.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> taskRunning(restPort));
    }

    public long pid() {
        return process.pid();
    }

    /** SIGTERM and wait (offsets flushed), as an operator's restart would; forcibly after 60 s. */
    public void stop() {
        if (process != null) {
            BenchmarkSupport.terminate(process.pid());
        }
    }

    /**
     * The relay's connector and router settings (from {@link DebeziumSettings}, with the relay's defaults for what the
     * relay's configuration supplies), minus what the worker owns (offset storage, bootstrap servers).
     */
    public static Properties connectorSettings(
            String slot,
            String publication,
            String host,
            int port,
            String database,
            String user,
            String password,
            String bootstrapServers,
            String topicPattern) {
        Properties relay = DebeziumSettings.of(
                new CdcProperties(
                        slot,
                        publication,
                        "unused",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(5),
                        4,
                        Duration.ofSeconds(1),
                        Map.of()),
                new DatabaseProperties(host, port, "", database, user, password),
                new PublishProperties(bootstrapServers, topicPattern, Duration.ofSeconds(15), Map.of()));
        Properties connector = new Properties();
        relay.stringPropertyNames().stream()
                .filter(k -> !k.startsWith("offset.") && !k.equals("bootstrap.servers"))
                .forEach(k -> connector.setProperty(k, relay.getProperty(k)));
        // Debezium's own class, as a Connect user registers it (the relay's subclass skips only its connection check)
        connector.setProperty("connector.class", PostgresConnector.class.getName());
        connector.setProperty("tasks.max", "1");
        addCloudEventHeaders(connector);
        return connector;
    }

    /**
     * The CloudEvents headers the relay writes after the envelope's ({@link CloudEventHeaders}), in its order: the
     * router places the columns they restate a second time under their ce_ names, then ce_dataschema and
     * ce_specversion from columns of their own ({@link #addCloudEventColumns}), and Kafka's own InsertHeader transform
     * adds the other two constants.
     */
    private static void addCloudEventHeaders(Properties connector) {
        String placement = "transforms.outbox.table.fields.additional.placement";
        connector.setProperty(
                placement,
                connector.getProperty(placement)
                        + ","
                        + String.join(
                                ",",
                                OutboxColumns.ID + ":header:" + CloudEventHeaders.ID,
                                "event_type:header:" + CloudEventHeaders.TYPE,
                                "occurred_at:header:" + CloudEventHeaders.TIME,
                                OutboxColumns.AGGREGATE_ID + ":header:" + CloudEventHeaders.SUBJECT,
                                DATA_SCHEMA + ":header:" + CloudEventHeaders.DATASCHEMA,
                                SPEC_VERSION + ":header:" + CloudEventHeaders.SPECVERSION));
        Map<String, String> constants = new LinkedHashMap<>();
        constants.put(CloudEventHeaders.SOURCE, CloudEventHeaders.PAYMENTS_API);
        constants.put(CloudEventHeaders.CONTENT_TYPE, CloudEventHeaders.JSON);
        StringBuilder transforms = new StringBuilder(connector.getProperty("transforms"));
        int n = 0;
        for (Map.Entry<String, String> constant : constants.entrySet()) {
            String name = "ceConstant" + n++;
            transforms.append(',').append(name);
            connector.setProperty("transforms." + name + ".type", "org.apache.kafka.connect.transforms.InsertHeader");
            connector.setProperty("transforms." + name + ".header", constant.getKey());
            connector.setProperty("transforms." + name + ".value.literal", constant.getValue());
        }
        connector.setProperty("transforms", transforms.toString());
    }

    /** Connect's outbox columns for ce_dataschema and ce_specversion. */
    static final String DATA_SCHEMA = "data_schema";

    static final String SPEC_VERSION = "spec_version";

    /**
     * Connect's outbox only: ce_dataschema and ce_specversion as columns, filled on insert (the schema's URI from
     * event_type and schema_version as {@link EventSchemas#uri} builds it). The relay builds both headers from the
     * contract; no Connect transform joins two fields, and InsertHeader parses its literal as Connect data, so "1.0"
     * would be the number 1. A user of the connector needs these columns, and their trigger runs in PostgreSQL.
     */
    public static void addCloudEventColumns(java.sql.Connection owner) {
        String uri = EventSchemas.uri("", 0);
        String prefix = uri.substring(0, uri.length() - ":0".length());
        try (java.sql.Statement statement = owner.createStatement()) {
            statement.execute("ALTER TABLE outbox_messages ADD COLUMN " + DATA_SCHEMA + " text, ADD COLUMN "
                    + SPEC_VERSION + " text");
            statement.execute("CREATE FUNCTION outbox_cloud_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    + "NEW." + DATA_SCHEMA + " := '" + prefix + "' || NEW.event_type || ':' || NEW.schema_version; "
                    + "NEW." + SPEC_VERSION + " := '" + CloudEventHeaders.SPEC_VERSION_1_0 + "'; "
                    + "RETURN NEW; END $$");
            statement.execute("CREATE TRIGGER outbox_cloud_event BEFORE INSERT ON outbox_messages FOR EACH ROW "
                    + "EXECUTE FUNCTION outbox_cloud_event()");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A standalone worker: strings for key, value and headers (the relay's record shape), offsets flushed every second
     * as the relay's engine does, and the relay's producer settings as the worker's producer overrides. The client's
     * authentication applies to the worker's own clients, its producer ({@code producer.}, which does not inherit the
     * worker's) and its admin ({@code admin.}).
     */
    static Properties workerSettings(Path dir, int restPort, String bootstrapServers, Map<String, String> kafkaClient) {
        Properties worker = new Properties();
        worker.setProperty("bootstrap.servers", bootstrapServers);
        worker.setProperty("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.setProperty("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.setProperty("header.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.setProperty(
                "offset.storage.file.filename", dir.resolve("offsets").toString());
        worker.setProperty("offset.flush.interval.ms", "1000");
        worker.setProperty("offset.flush.timeout.ms", "10000");
        worker.setProperty("listeners", "http://127.0.0.1:" + restPort);
        kafkaClient.forEach((k, v) -> {
            worker.setProperty(k, v);
            worker.setProperty("admin." + k, v);
        });
        producerSettings(bootstrapServers, kafkaClient).forEach((k, v) -> {
            if (!k.endsWith(".serializer")
                    && !k.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)
                    && !k.equals(ProducerConfig.CLIENT_ID_CONFIG)) {
                worker.setProperty("producer." + k, String.valueOf(v));
            }
        });
        return worker;
    }

    /** The relay's producer settings ({@link KafkaPublisher#producerSettings}) for this broker and client. */
    public static Map<String, Object> producerSettings(String bootstrapServers, Map<String, String> kafkaClient) {
        return KafkaPublisher.producerSettings(
                new PublishProperties(bootstrapServers, Topics.DEFAULT_PATTERN, Duration.ofSeconds(15), kafkaClient));
    }

    /**
     * The worker's class path: connect-runtime of the broker's version and the Debezium connector of the relay's, as
     * Maven Central has them (resolved by {@code connect-worker/pom.xml}, run from the system-tests directory).
     */
    public static String classpath() throws Exception {
        Path output = Path.of("target", "connect-worker.classpath").toAbsolutePath();
        Process maven = new ProcessBuilder(
                        Path.of("..", "mvnw").toAbsolutePath().toString(),
                        "-B",
                        "-q",
                        "-f",
                        "connect-worker/pom.xml",
                        "dependency:build-classpath",
                        "-Dkafka.version=" + kafkaVersion(),
                        "-Ddebezium.version=" + debeziumVersion(),
                        "-Dmdep.outputFile=" + output)
                .inheritIO()
                .start();
        assertThat(maven.waitFor())
                .as("resolving the Connect worker's class path")
                .isZero();
        return Files.readString(output).trim();
    }

    /** What {@link #classpath()} resolves, for a report. */
    public static String description() {
        return "Kafka Connect " + kafkaVersion() + " standalone, Debezium " + debeziumVersion()
                + " PostgreSQL connector and Outbox Event Router, from Maven Central";
    }

    private static String kafkaVersion() {
        return AppInfoParser.getVersion();
    }

    private static String debeziumVersion() {
        return new PostgresConnector().version();
    }

    private static boolean taskRunning(int restPort) {
        try {
            HttpResponse<String> status = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + restPort + "/connectors/" + CONNECTOR + "/status"))
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return status.statusCode() == 200 && status.body().contains("\"tasks\":[{\"id\":0,\"state\":\"RUNNING\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void store(Properties properties, Path file) throws IOException {
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, null);
        }
    }
}
