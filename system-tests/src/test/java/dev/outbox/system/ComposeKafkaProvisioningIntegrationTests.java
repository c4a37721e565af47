package dev.outbox.system;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.outbox.local.KafkaAccess;
import dev.outbox.local.KafkaBroker;
import dev.outbox.local.LocalCredentials;
import dev.outbox.testing.ChildKafka;
import dev.outbox.testing.Ports;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compose's kafka-init (docker/kafka/provision.sh) run for real, without Docker, against a broker secured as
 * compose's is: the Kafka command-line tools it calls are the same classes the image's scripts start. Afterwards the
 * broker holds exactly the ACLs of acls.txt (the local run's provisioning reads the same file), the topics of
 * topics.txt, and each principal logs in with its password.
 */
class ComposeKafkaProvisioningIntegrationTests {

    @Test
    void composesInitScriptGrantsExactlyTheAclsOfTheSharedFile(@TempDir Path tmp) throws Exception {
        Path root = ComposeConfigurationTests.root();
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        tool(bin, "kafka-configs.sh", "kafka.admin.ConfigCommand");
        tool(bin, "kafka-topics.sh", "org.apache.kafka.tools.TopicCommand");
        tool(bin, "kafka-acls.sh", "org.apache.kafka.tools.AclCommand");
        try (ChildKafka kafka = new ChildKafka(
                        Ports.free(), tmp.resolve("data"), LocalCredentials.KAFKA_ADMIN.password())
                .c1Only()
                .start()) {
            ProcessBuilder script = new ProcessBuilder(
                            "bash", root.resolve("docker/kafka/provision.sh").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(Path.of("target", "provision.log").toFile());
            script.environment()
                    .putAll(Map.of(
                            "KAFKA_BIN",
                            bin.toString(),
                            "KAFKA_SERVER",
                            kafka.bootstrapServers(),
                            "PIPELINE_KAFKA",
                            root.resolve("docker/kafka").toString(),
                            "ADMIN_PASSWORD",
                            LocalCredentials.KAFKA_ADMIN.password()));
            // provision.sh reads each principal's password from <PRINCIPAL>_PASSWORD, as compose's kafka-init gives it
            LocalCredentials.kafkaPrincipals()
                    .forEach((user, password) ->
                            script.environment().put(user.toUpperCase(java.util.Locale.ROOT) + "_PASSWORD", password));
            Process run = script.start();
            assertThat(run.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(run.exitValue())
                    .as(Files.readString(Path.of("target", "provision.log")))
                    .isZero();

            try (Admin admin = Admin.create(kafka.adminClientProperties())) {
                Set<AclBinding> granted = Set.copyOf(
                        admin.describeAcls(AclBindingFilter.ANY).values().get());
                assertThat(granted)
                        .isEqualTo(KafkaAccess.rules().stream()
                                .map(ComposeKafkaProvisioningIntegrationTests::binding)
                                .collect(Collectors.toSet()));
                assertThat(admin.listTopics().names().get())
                        .containsAll(KafkaAccess.topics().keySet());
            }
            for (String[] login : new String[][] {
                {LocalCredentials.KAFKA_RELAY.user(), LocalCredentials.KAFKA_RELAY.password()},
                {LocalCredentials.KAFKA_ACCOUNTING.user(), LocalCredentials.KAFKA_ACCOUNTING.password()},
                {LocalCredentials.KAFKA_REPLAY.user(), LocalCredentials.KAFKA_REPLAY.password()},
                {LocalCredentials.KAFKA_UI.user(), LocalCredentials.KAFKA_UI.password()}
            }) {
                Map<String, Object> client = new HashMap<>(KafkaBroker.clientSecurity(login[0], login[1]));
                client.put("bootstrap.servers", kafka.bootstrapServers());
                try (Admin as = Admin.create(client)) {
                    assertThat(as.describeCluster().clusterId().get())
                            .as(login[0])
                            .isNotBlank();
                }
            }
        }
    }

    private static AclBinding binding(KafkaAccess.Rule rule) {
        return new AclBinding(
                new org.apache.kafka.common.resource.ResourcePattern(rule.resource(), rule.name(), rule.pattern()),
                new org.apache.kafka.common.acl.AccessControlEntry(
                        "User:" + rule.principal(),
                        "*",
                        rule.operation(),
                        org.apache.kafka.common.acl.AclPermissionType.ALLOW));
    }

    /** A stand-in for the image's bin/ script of that name: the same main class, on this JVM's class path. */
    private static void tool(Path bin, String name, String mainClass) throws Exception {
        Path script = bin.resolve(name);
        Files.writeString(
                script,
                "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java")
                        + "' -XX:TieredStopAtLevel=1 -Xshare:auto -cp '" + System.getProperty("java.class.path") + "' "
                        + mainClass + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
