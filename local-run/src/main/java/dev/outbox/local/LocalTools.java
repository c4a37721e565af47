package dev.outbox.local;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import dev.outbox.contract.Topics;
import dev.outbox.reconcile.InvariantChecker;

/**
 * The local run's operator commands besides the launcher: {@code tail} ({@link TopicTail}) and {@code check}, the
 * pipeline's invariant ({@link InvariantChecker}) against the local run's databases and broker. They log in as the
 * local run's administrators ({@link LocalCredentials}) unless the environment says otherwise.
 */
final class LocalTools {

    private LocalTools() {}

    /**
     * {@code check [paymentsJdbcUrl] [accountingJdbcUrl] [consumerName] [bootstrap] [topic]}; defaults match the
     * local run ({@code PGUSER}/{@code PGPASSWORD} override the superuser). Exit code 0 when the invariant holds, 1
     * when it is broken.
     */
    static void check(String[] args) throws SQLException {
        String payments = arg(args, 0, "jdbc:postgresql://127.0.0.1:5432/payments");
        String accounting = arg(args, 1, "jdbc:postgresql://127.0.0.1:5432/accounting");
        String consumer = arg(args, 2, "accounting");
        Map<String, Object> kafka = kafka(arg(args, 3, "127.0.0.1:9092"));
        String topic = arg(args, 4, Topics.PAYMENT_EVENTS);
        String user = System.getenv().getOrDefault("PGUSER", LocalCredentials.POSTGRES.user());
        String password = System.getenv().getOrDefault("PGPASSWORD", LocalCredentials.POSTGRES.password());
        try (Connection p = DriverManager.getConnection(payments, user, password);
                Connection a = DriverManager.getConnection(accounting, user, password)) {
            InvariantChecker.Report report = InvariantChecker.check(p, a, consumer, kafka, topic);
            System.out.println(report);
            System.exit(report.holds() ? 0 : 1);
        }
    }

    /**
     * The local run's broker as its admin sees it ({@code KAFKA_USERNAME}, {@code KAFKA_PASSWORD} and
     * {@code KAFKA_SECURITY_PROTOCOL} override).
     */
    static Map<String, Object> kafka(String bootstrap) {
        Map<String, String> env = System.getenv();
        Map<String, Object> config = new HashMap<>(
                "PLAINTEXT".equals(env.get("KAFKA_SECURITY_PROTOCOL"))
                        ? KafkaBroker.clientSecurity(null, null)
                        : KafkaBroker.clientSecurity(
                                env.getOrDefault("KAFKA_USERNAME", LocalCredentials.KAFKA_ADMIN.user()),
                                env.getOrDefault("KAFKA_PASSWORD", LocalCredentials.KAFKA_ADMIN.password())));
        config.put("bootstrap.servers", bootstrap);
        return config;
    }

    private static String arg(String[] args, int i, String fallback) {
        return args.length > i && !args[i].isBlank() ? args[i] : fallback;
    }
}
