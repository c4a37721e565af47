package dev.outbox.accounting.reconcile;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reconcile job's settings: its own Kafka login, an objective it can judge by, no password in a log line. */
class ReconcilePropertiesTests {

    static final Map<String, Object> SECURED = Map.of(
            "bootstrap.servers", "127.0.0.1:9092",
            "security.protocol", "SASL_PLAINTEXT",
            "group.id", "accounting",
            "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"accounting\" "
                            + "password=\"accounting-secret\";");

    @Test
    void onASecuredBrokerTheJobLogsInAsItsOwnPrincipalWithoutTheConsumersGroup() {
        Map<String, Object> config =
                properties(true, "1m", "5m", "reconciler", "s\"e\\cret").asReconcilePrincipal(SECURED);
        assertThat(config.get("sasl.jaas.config"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"reconciler\" "
                        + "password=\"s\\\"e\\\\cret\";");
        assertThat(config)
                .containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("client.id", "accounting-reconcile")
                .doesNotContainKey("group.id");
    }

    @Test
    void aPlaintextBrokerKeepsItsLoginAndLosesOnlyTheGroup() {
        Map<String, Object> plaintext = Map.of("bootstrap.servers", "127.0.0.1:9092", "group.id", "accounting");
        assertThat(properties(true, "1m", "5m", "", "").asReconcilePrincipal(plaintext))
                .containsOnlyKeys("bootstrap.servers", "client.id");
    }

    @Test
    void anObjectiveNoLongerThanTheWindowIsRefusedWhenTheJobIsOn() {
        assertThatThrownBy(() -> properties(true, "1m", "1m", "", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reconcile.objective");
        assertThat(properties(false, "1m", "1m", "", "").enabled()).isFalse();
        assertThat(properties(true, "1m", "61s", "", "").objective()).isEqualTo(Duration.ofSeconds(61));
    }

    @Test
    void aUserNameThatCouldBreakTheLoginModuleIsRefusedAtStartUp() {
        assertThatThrownBy(() -> properties(false, "1m", "5m", "reconciler\" admin=\"x", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reconcile.kafka-username");
    }

    @Test
    void thePasswordsStayOutOfToString() {
        ReconcileProperties p = new ReconcileProperties(
                true,
                Duration.ofMinutes(1),
                Duration.ofMinutes(5),
                1000,
                1000,
                100_000,
                Duration.ofSeconds(30),
                "jdbc:postgresql://127.0.0.1/payments",
                "reconciler",
                "payments-secret",
                "reconciler",
                "accounting-secret",
                "reconciler",
                "kafka-secret");
        assertThat(p.toString())
                .contains("reconciler")
                .doesNotContain("payments-secret", "accounting-secret", "kafka-secret");
    }

    private static ReconcileProperties properties(
            boolean enabled, String window, String objective, String kafkaUser, String kafkaPassword) {
        return new ReconcileProperties(
                enabled,
                Duration.parse("PT" + window.toUpperCase()),
                Duration.parse("PT" + objective.toUpperCase()),
                1000,
                1000,
                100_000,
                Duration.ofSeconds(30),
                "jdbc:postgresql://127.0.0.1/payments",
                "",
                "",
                "",
                "",
                kafkaUser,
                kafkaPassword);
    }
}
