package dev.outbox.accounting;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Kafka client configuration of the consumer's logged in as another SCRAM principal: the dead-letter endpoints'
 * replay principal, the reconcile job's. The user name is checked when it is configured, so that it cannot add
 * options to the JAAS line; the password is quoted.
 */
public final class ScramLogin {

    private static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private ScramLogin() {}

    /** @throws IllegalArgumentException when {@code username} is not empty and not a plain user name */
    public static void checkUsername(String setting, String username) {
        if (!username.isEmpty() && !USERNAME.matcher(username).matches()) {
            throw new IllegalArgumentException(setting + " must match " + USERNAME);
        }
    }

    /** Whether {@code base} talks SASL to the broker (a principal's credentials then matter). */
    public static boolean secured(Map<String, Object> base) {
        return String.valueOf(base.get("security.protocol")).startsWith("SASL");
    }

    /** {@code base} with its JAAS line for {@code username}; on a plaintext broker {@code base} as is, copied. */
    public static Map<String, Object> as(Map<String, Object> base, String username, String password) {
        Map<String, Object> config = new HashMap<>(base);
        if (secured(config)) {
            config.put(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + username
                            + "\" password=\""
                            + password.replace("\\", "\\\\").replace("\"", "\\\"") + "\";");
        }
        return config;
    }
}
