package dev.outbox.local;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The development credentials of the local run and of compose, in one place: the PostgreSQL roles of
 * {@code docker/postgres/init.sql}, the Kafka principals of {@code compose.yaml}, and the HTTP tokens whose SHA-256
 * digests are the services' defaults. The local run starts the services with them and every test reads them from
 * here; {@code ComposeConfigurationTests} holds them to compose, init.sql and the services' default digests. Change
 * them for anything but a local stack.
 */
public final class LocalCredentials {

    /** A user name and its password. */
    public record Login(String user, String password) {

        /** The login as the two environment variables a service reads it from. */
        public Map<String, String> as(String userVariable, String passwordVariable) {
            return Map.of(userVariable, user, passwordVariable, password);
        }
    }

    /** The PostgreSQL superuser (the embedded server's, and compose's {@code postgres} image's). */
    public static final Login POSTGRES = new Login("postgres", "postgres");

    /** payments-api's role: owns and migrates the payments database. */
    public static final Login PAYMENTS_DB = new Login("payments_app", "payments_app");

    /** The relay's role: REPLICATION, and the outbox through the migration's payments_relay group. */
    public static final Login RELAY_DB = new Login("relay", "relay");

    /** accounting-consumer's role: owns and migrates the accounting database. */
    public static final Login ACCOUNTING_DB = new Login("accounting_app", "accounting_app");
    /** The consumer's reconcile job, on both databases: reads, never writes. */
    public static final Login RECONCILER_DB = new Login("reconciler", "reconciler");

    /** The Kafka super user: provisioning only. */
    public static final Login KAFKA_ADMIN = new Login("admin", "admin-secret");

    public static final Login KAFKA_RELAY = new Login("relay", "relay-secret");
    public static final Login KAFKA_ACCOUNTING = new Login("accounting", "accounting-secret");
    /** The consumer's dead-letter replays: reads the DLT, writes the events topic. */
    public static final Login KAFKA_REPLAY = new Login("replay", "replay-secret");
    /** The consumer's reconcile job: reads the events topic and its dead letters. */
    public static final Login KAFKA_RECONCILER = new Login("reconciler", "reconciler-secret");
    /** Kafka UI (compose): reads the pipeline's topics. */
    public static final Login KAFKA_UI = new Login("ui", "ui-secret");

    /** The operator's bearer token of every service (its SHA-256 is each service's default admin digest). */
    public static final String ADMIN_TOKEN = "local-admin-token";

    /** API keys of the two local clients of payments-api ({@code PAYMENTS_API_KEYS}' default digests). */
    public static final String CLIENT_A_KEY = "local-key-client-a";

    public static final String CLIENT_B_KEY = "local-key-client-b";

    private LocalCredentials() {}

    /** Every service principal of the broker, by name (the admin is bootstrapped into the metadata instead). */
    public static Map<String, String> kafkaPrincipals() {
        Map<String, String> passwords = new LinkedHashMap<>();
        for (Login login : new Login[] {KAFKA_RELAY, KAFKA_ACCOUNTING, KAFKA_REPLAY, KAFKA_RECONCILER, KAFKA_UI}) {
            passwords.put(login.user(), login.password());
        }
        return passwords;
    }
}
