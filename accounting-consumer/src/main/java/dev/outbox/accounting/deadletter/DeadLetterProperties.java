package dev.outbox.accounting.deadletter;

import java.time.Duration;
import java.util.Map;

import dev.outbox.accounting.OperatorRefusal;
import dev.outbox.accounting.ScramLogin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The operators' access to the consumer's dead-letter topic. On a secured broker the admin endpoints read the
 * dead-letter topic and replay to the events topic as their own Kafka principal, never as the consumer's: the
 * consumer's principal may not write the events topic (only the relay's may), and this one may do nothing else.
 *
 * @param replayUsername SCRAM user of the replay principal; empty on a secured broker disables the endpoints
 * @param replayPassword its password
 * @param scanTimeout    longest a listing may take to read the dead-letter topic to its end
 * @param sendTimeout    longest a replay waits for the broker's acknowledgement of one record
 */
@ConfigurationProperties("accounting.dead-letters")
public record DeadLetterProperties(
        @DefaultValue("") String replayUsername,
        @DefaultValue("") String replayPassword,
        @DefaultValue("15s") Duration scanTimeout,
        @DefaultValue("15s") Duration sendTimeout) {

    public DeadLetterProperties {
        ScramLogin.checkUsername("accounting.dead-letters.replay-username", replayUsername);
    }

    /**
     * A Kafka client configuration of the consumer's ({@code base}: bootstrap servers, security protocol,
     * mechanism) logged in as the replay principal instead; on a plaintext broker {@code base} as is.
     *
     * @throws OperatorRefusal (503) on a secured broker without a replay principal
     */
    Map<String, Object> asReplayPrincipal(Map<String, Object> base) {
        if (ScramLogin.secured(base) && replayUsername.isEmpty()) {
            throw OperatorRefusal.deadLettersDisabled();
        }
        return ScramLogin.as(base, replayUsername, replayPassword);
    }

    @Override
    public String toString() {
        return "DeadLetterProperties[replayUsername=" + replayUsername + ", scanTimeout=" + scanTimeout
                + ", sendTimeout=" + sendTimeout + "]";
    }
}
