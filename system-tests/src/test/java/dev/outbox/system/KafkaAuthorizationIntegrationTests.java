package dev.outbox.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.outbox.accounting.AccountingApplication;
import dev.outbox.accounting.EventFixtures;
import dev.outbox.accounting.EventFixtures.Event;
import dev.outbox.contract.EventTypes;
import dev.outbox.local.KafkaAccess;
import dev.outbox.local.KafkaBroker;
import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.RelayApplication;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import dev.outbox.testing.TestPostgres;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The pipeline as the local run deploys it: a broker that authenticates every client (SASL/SCRAM) and authorizes
 * by the ACLs of docker/kafka/acls.txt, the database roles of docker/postgres/init.sql, each service with its own
 * principal. A payment flows end to end; an event forged by any other principal (the consumer's own, Kafka UI's, an
 * unknown user, an unauthenticated client) is refused by the broker and never reaches the ledger. The consumer's
 * replay principal writes the events topic only through the admin endpoints' replay, and nothing else.
 */
class KafkaAuthorizationIntegrationTests {

    static final String ADMIN_PASSWORD = "test-admin-secret";
    static final Map<String, String> PASSWORDS = Map.of(
            "relay",
            "test-relay-secret",
            "accounting",
            "test-accounting-secret",
            "replay",
            "test-replay-secret",
            "reconciler",
            "test-reconciler-secret",
            "ui",
            "test-ui-secret");
    static final String TOPIC = "payments.payment.events";

    @Test
    void onlyTheRelayAndTheConsumersReplayPrincipalWriteTheEventsAndForgedEventsNeverReachTheLedger(@TempDir Path tmp)
            throws Exception {
        try (TestPostgres pg = TestPostgres.start(false);
                ChildKafka kafka = new ChildKafka(Ports.free(), tmp.resolve("data"), ADMIN_PASSWORD)
                        .c1Only()
                        .start()) {
            pg.applyInitScript();
            try (Admin admin = Admin.create(kafka.adminClientProperties())) {
                KafkaAccess.provision(admin, PASSWORDS);
            }
            String bootstrap = kafka.bootstrapServers();
            try (ConfigurableApplicationContext api = new SpringApplicationBuilder(PaymentsApplication.class)
                            .run(
                                    "--server.port=0",
                                    "--management.server.port=0",
                                    "--spring.datasource.url=" + pg.jdbcUrl("payments"),
                                    "--spring.datasource.username=payments_app",
                                    "--spring.datasource.password=payments_app");
                    ConfigurableApplicationContext relay = RelayApplication.builder()
                            .run(
                                    "--server.port=" + Ports.free(),
                                    "--relay.db.port=" + pg.port(),
                                    "--relay.db.user=relay",
                                    "--relay.db.password=relay",
                                    "--relay.kafka.bootstrap-servers=" + bootstrap,
                                    "--KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT",
                                    "--KAFKA_USERNAME=relay",
                                    "--KAFKA_PASSWORD=" + PASSWORDS.get("relay"));
                    ConfigurableApplicationContext consumer = AccountingApplication.builder()
                            .run(
                                    "--server.port=0",
                                    "--management.server.port=0",
                                    "--spring.datasource.url=" + pg.jdbcUrl("accounting"),
                                    "--spring.datasource.username=accounting_app",
                                    "--spring.datasource.password=accounting_app",
                                    "--spring.kafka.bootstrap-servers=" + bootstrap,
                                    "--KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT",
                                    "--KAFKA_USERNAME=accounting",
                                    "--KAFKA_PASSWORD=" + PASSWORDS.get("accounting"),
                                    "--ACCOUNTING_REPLAY_KAFKA_USERNAME=replay",
                                    "--ACCOUNTING_REPLAY_KAFKA_PASSWORD=" + PASSWORDS.get("replay"),
                                    // the reconcile job, as its own roles (init.sql) and principal
                                    "--ACCOUNTING_RECONCILE_ENABLED=true",
                                    "--ACCOUNTING_RECONCILE_WINDOW=1s",
                                    "--ACCOUNTING_RECONCILE_OBJECTIVE=3s",
                                    "--ACCOUNTING_RECONCILE_PAYMENTS_URL=" + pg.jdbcUrl("payments"),
                                    "--ACCOUNTING_RECONCILE_PAYMENTS_USER=reconciler",
                                    "--ACCOUNTING_RECONCILE_PAYMENTS_PASSWORD=reconciler",
                                    "--ACCOUNTING_RECONCILE_DB_USER=reconciler",
                                    "--ACCOUNTING_RECONCILE_DB_PASSWORD=reconciler",
                                    "--ACCOUNTING_RECONCILE_KAFKA_USERNAME=reconciler",
                                    "--ACCOUNTING_RECONCILE_KAFKA_PASSWORD=" + PASSWORDS.get("reconciler"))) {
                JdbcClient ledger = JdbcClient.create(new DriverManagerDataSource(
                        pg.jdbcUrl("accounting"),
                        LocalCredentials.POSTGRES.user(),
                        LocalCredentials.POSTGRES.password()));
                String apiUrl = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port");
                UUID first = pay(apiUrl, "before-forgery");
                await().atMost(Duration.ofSeconds(90)).until(() -> entries(ledger, first) == 1);

                UUID forged = UUID.randomUUID();
                Event forgery = Event.created(forged, "123456.78", "EUR");
                assertThatThrownBy(() -> send(producer(bootstrap, "accounting", PASSWORDS.get("accounting")), forgery))
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertThatThrownBy(() -> send(producer(bootstrap, "ui", PASSWORDS.get("ui")), forgery))
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertThatThrownBy(() -> send(producer(bootstrap, "relay", "not-the-password"), forgery))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
                assertThatThrownBy(() -> send(producer(bootstrap, "mallory", "mallory"), forgery))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
                assertThatThrownBy(() -> send(producer(bootstrap, null, null), forgery))
                        .as("an unauthenticated client gets no answer at all")
                        .hasCauseInstanceOf(TimeoutException.class);
                assertThatThrownBy(() -> send(
                                producer(bootstrap, "accounting", PASSWORDS.get("accounting")),
                                Event.created(forged, "1.00", "EUR"),
                                "payments.refund.events"))
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertThatThrownBy(() ->
                                send(producer(bootstrap, "relay", PASSWORDS.get("relay")), forgery, TOPIC + ".DLT"))
                        .as("the relay may not write the consumer's dead letters")
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertCannotReadInTheConsumersGroup(bootstrap, "relay");

                assertThatThrownBy(() ->
                                send(producer(bootstrap, "replay", PASSWORDS.get("replay")), forgery, TOPIC + ".DLT"))
                        .as("the replay principal may not forge dead letters")
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertThatThrownBy(() -> send(
                                producer(bootstrap, "replay", PASSWORDS.get("replay")),
                                forgery,
                                "payments.refund.events"))
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertCannotReadInTheConsumersGroup(bootstrap, "replay");

                // the reconcile job's principal reads the events where its look-ups need them, and nothing more
                assertThatThrownBy(() -> send(producer(bootstrap, "reconciler", PASSWORDS.get("reconciler")), forgery))
                        .hasCauseInstanceOf(AuthorizationException.class);
                assertCannotReadInTheConsumersGroup(bootstrap, "reconciler");
                Map<String, Object> firstEvent = JdbcClient.create(new DriverManagerDataSource(
                                pg.jdbcUrl("payments"),
                                LocalCredentials.POSTGRES.user(),
                                LocalCredentials.POSTGRES.password()))
                        .sql("SELECT id, occurred_at FROM outbox_messages WHERE aggregate_id = :payment")
                        .param("payment", first)
                        .query()
                        .singleRow();
                UUID firstId = (UUID) firstEvent.get("id");
                try (dev.outbox.reconcile.KafkaWire wire = new dev.outbox.reconcile.KafkaWire(
                        client(bootstrap, "reconciler", PASSWORDS.get("reconciler"), Map.of()),
                        TOPIC,
                        1_000,
                        Duration.ofSeconds(30))) {
                    assertThat(wire.findOnTopic(List.of(new dev.outbox.reconcile.Wire.Event(
                                    firstId, first, ((java.sql.Timestamp) firstEvent.get("occurred_at")).toInstant()))))
                            .containsOnlyKeys(firstId);
                }
                // and the job, as its own roles and principal, judged that event applied
                int reconcilePort = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(admin(reconcilePort, "GET", "/admin/reconcile")
                                        .body())
                                .contains("\"APPLIED\":1")
                                .contains("\"problems\":[]"));

                // a record the consumer cannot apply (written as the relay, as a relay bug would): the admin
                // endpoints list it and replay it as the replay principal; it fails again and returns with its history
                int consumerPort = Integer.parseInt(consumer.getEnvironment().getProperty("local.server.port"));
                Event poison = new Event(
                        UUID.randomUUID(), UUID.randomUUID(), 1, EventTypes.PAYMENT_CREATED, "{not json", null);
                send(producer(bootstrap, "relay", PASSWORDS.get("relay")), poison);
                await().atMost(Duration.ofSeconds(60))
                        .until(() ->
                                deadLetters(consumerPort).contains(poison.id().toString()));
                JsonNode letter = JsonMapper.builder()
                        .build()
                        .readTree(deadLetters(consumerPort))
                        .get(0);
                assertThat(letter.path("eventId").asText())
                        .isEqualTo(poison.id().toString());
                assertThat(letter.path("payload").asText()).startsWith("<redacted");
                String partition = letter.path("partition").asText();
                String offset = letter.path("offset").asText();
                HttpResponse<String> replayed =
                        admin(consumerPort, "POST", "/admin/dead-letters/" + partition + "/" + offset + "/replay");
                assertThat(replayed.statusCode()).as(replayed.body()).isEqualTo(200);
                assertThat(replayed.body()).isEqualTo("{\"replayed\":1,\"alreadyReplayed\":0}");
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> deadLetters(consumerPort).split(poison.id().toString(), -1).length == 3);
                assertThat(deadLetters(consumerPort))
                        .contains("\"history\":[\"payments.payment.events.DLT-" + partition + "@" + offset);

                UUID after = pay(apiUrl, "after-forgery");
                await().atMost(Duration.ofSeconds(60)).until(() -> entries(ledger, after) == 1);
                assertThat(entries(ledger, forged))
                        .as("the forged payment's ledger entries")
                        .isZero();
                assertThat(ledger.sql("SELECT count(*) FROM ledger_entries")
                                .query(Long.class)
                                .single())
                        .isEqualTo(2);
            }
        }
    }

    private static UUID pay(String apiUrl, String key) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(apiUrl + "/payments"))
                                .header("Authorization", "Bearer local-key-client-a")
                                .header("Idempotency-Key", key)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"amount\":\"10.00\",\"currency\":\"EUR\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return UUID.fromString(response.body().substring(7, 43));
    }

    private static String deadLetters(int port) throws Exception {
        HttpResponse<String> response = admin(port, "GET", "/admin/dead-letters");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private static HttpResponse<String> admin(int port, String method, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .header("Authorization", "Bearer local-admin-token")
                                .method(method, HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static long entries(JdbcClient ledger, UUID payment) {
        return ledger.sql("SELECT count(*) FROM ledger_entries WHERE payment_id = :id")
                .param("id", payment)
                .query(Long.class)
                .single();
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String user, String password) {
        return new KafkaProducer<>(client(
                bootstrap,
                user,
                password,
                Map.of(
                        "acks",
                        "all",
                        "max.block.ms",
                        "5000",
                        "key.serializer",
                        StringSerializer.class.getName(),
                        "value.serializer",
                        StringSerializer.class.getName())));
    }

    /** {@code user} subscribing to the events in the consumer's group: the broker refuses the topic or the group. */
    private static void assertCannotReadInTheConsumersGroup(String bootstrap, String user) {
        try (KafkaConsumer<String, String> reading = new KafkaConsumer<>(client(
                bootstrap,
                user,
                PASSWORDS.get(user),
                Map.of(
                        "group.id",
                        "accounting",
                        "key.deserializer",
                        StringDeserializer.class.getName(),
                        "value.deserializer",
                        StringDeserializer.class.getName())))) {
            reading.subscribe(List.of(TOPIC));
            assertThatThrownBy(() -> reading.poll(Duration.ofSeconds(10)))
                    .as(user + " may not read the events in the consumer's group")
                    .isInstanceOfAny(
                            TopicAuthorizationException.class,
                            org.apache.kafka.common.errors.GroupAuthorizationException.class);
        }
    }

    private static Map<String, Object> client(
            String bootstrap, String user, String password, Map<String, Object> more) {
        Map<String, Object> config = new HashMap<>(KafkaBroker.clientSecurity(user, password));
        config.put("bootstrap.servers", bootstrap);
        config.putAll(more);
        return config;
    }

    private static void send(KafkaProducer<String, String> producer, Event event) throws Exception {
        send(producer, event, TOPIC);
    }

    private static void send(KafkaProducer<String, String> producer, Event event, String topic) throws Exception {
        try (producer) {
            producer.send(EventFixtures.record(topic, null, event)).get();
        }
    }
}
