package dev.outbox.accounting.deadletter;

import java.time.Duration;
import java.util.Map;

import dev.outbox.accounting.OperatorRefusal;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which Kafka login the dead-letter endpoints use: the replay principal on a secured broker, or none at all. */
class DeadLetterPropertiesTests {

    static final Map<String, Object> SECURED = Map.of(
            "bootstrap.servers", "127.0.0.1:9092",
            "security.protocol", "SASL_PLAINTEXT",
            "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"accounting\" "
                            + "password=\"accounting-secret\";");

    @Test
    void onASecuredBrokerTheEndpointsLogInAsTheReplayPrincipalNeverAsTheConsumer() {
        Map<String, Object> config = properties("replay", "s\"e\\cret").asReplayPrincipal(SECURED);
        assertThat(config.get("sasl.jaas.config"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"replay\" "
                        + "password=\"s\\\"e\\\\cret\";");
        assertThat(config).containsEntry("bootstrap.servers", "127.0.0.1:9092");
        assertThat(SECURED.get("sasl.jaas.config").toString()).contains("accounting");
    }

    @Test
    void withoutAReplayPrincipalASecuredBrokerDisablesThem() {
        assertThatThrownBy(() -> properties("", "").asReplayPrincipal(SECURED))
                .isInstanceOfSatisfying(OperatorRefusal.class, e -> {
                    assertThat(e.slug()).isEqualTo("dead-letters-disabled");
                    assertThat(e.status()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
                });
    }

    @Test
    void aPlaintextBrokerTakesTheConfigurationAsIs() {
        Map<String, Object> plaintext = Map.of("bootstrap.servers", "127.0.0.1:9092");
        assertThat(properties("", "").asReplayPrincipal(plaintext)).isEqualTo(plaintext);
    }

    @Test
    void aUserNameThatCouldBreakTheLoginModuleIsRefusedAtStartUp() {
        assertThatThrownBy(() -> properties("replay\" admin=\"x", "p")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thePasswordStaysOutOfToString() {
        assertThat(properties("replay", "replay-secret").toString()).doesNotContain("replay-secret");
    }

    private static DeadLetterProperties properties(String user, String password) {
        return new DeadLetterProperties(user, password, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }
}
