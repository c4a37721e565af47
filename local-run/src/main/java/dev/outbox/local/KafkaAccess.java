package dev.outbox.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Provisions a secured broker as the compose stack's init container does, from the same files
 * (docker/kafka/acls.txt and topics.txt, packaged as {@code local-kafka/}): a SCRAM credential per service
 * principal, exactly the ACLs listed, and the pipeline's topics. Every step is idempotent, so a restarted local run
 * provisions again harmlessly.
 */
public final class KafkaAccess {

    /** One ALLOW rule of acls.txt. */
    public record Rule(
            String principal, AclOperation operation, ResourceType resource, PatternType pattern, String name) {

        AclBinding binding() {
            return new AclBinding(
                    new ResourcePattern(resource, name, pattern),
                    new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW));
        }
    }

    private KafkaAccess() {}

    public static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        for (String[] f : lines("acls.txt", 5)) {
            rules.add(new Rule(
                    f[0], AclOperation.valueOf(f[1]), ResourceType.valueOf(f[2]), PatternType.valueOf(f[3]), f[4]));
        }
        return rules;
    }

    /** name -> partitions, from topics.txt. */
    public static Map<String, Integer> topics() {
        Map<String, Integer> topics = new java.util.LinkedHashMap<>();
        for (String[] f : lines("topics.txt", 2)) {
            topics.put(f[0], Integer.parseInt(f[1]));
        }
        return topics;
    }

    /**
     * @param admin     a client authenticated as the broker's admin
     * @param passwords the SCRAM password of each service principal
     */
    public static void provision(Admin admin, Map<String, String> passwords) {
        try {
            List<UserScramCredentialUpsertion> users = new ArrayList<>();
            passwords.forEach((user, password) -> users.add(new UserScramCredentialUpsertion(
                    user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), password)));
            admin.alterUserScramCredentials(new ArrayList<>(users)).all().get();
            admin.createAcls(rules().stream().map(Rule::binding).toList()).all().get();
            for (Map.Entry<String, Integer> topic : topics().entrySet()) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic.getKey(), topic.getValue(), (short) 1)))
                            .all()
                            .get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not provision the broker: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String[]> lines(String file, int fields) {
        try (InputStream in = KafkaAccess.class.getResourceAsStream("/local-kafka/" + file)) {
            if (in == null) {
                throw new IllegalStateException("local-kafka/" + file + " is not on the class path");
            }
            List<String[]> lines = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                String[] f = trimmed.split("\\s+");
                if (f.length != fields) {
                    throw new IllegalStateException(file + ": expected " + fields + " fields in '" + trimmed + "'");
                }
                lines.add(f);
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
