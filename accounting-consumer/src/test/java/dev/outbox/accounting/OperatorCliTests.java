package dev.outbox.accounting;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.outbox.testing.Ports;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * (unit, no server) The command line refuses what it cannot send as the endpoints expect, before any request: a
 * usage error is exit status 2, an unreachable consumer 1. Its requests and output are tested against a running
 * consumer in accounting-consumer's DeadLetterAdminIntegrationTests and ParkedAdminIntegrationTests.
 */
class OperatorCliTests {

    @Test
    void usageErrorsAreRefusedBeforeAnyRequest() {
        assertThat(run("dlt")).startsWith("2 unknown command: dlt");
        assertThat(run()).startsWith("2 no command");
        assertThat(run("dlt", "show", "1-17")).startsWith("2 a dead letter is PARTITION@OFFSET");
        assertThat(run("dlt", "show", "1@x")).startsWith("2 a dead letter is PARTITION@OFFSET");
        assertThat(run("dlt", "replay")).startsWith("2 replay one record, a selection, or --all");
        assertThat(run("dlt", "replay", "1@2", "--reason", "poison")).startsWith("2 replay one record");
        assertThat(run("dlt", "list", "--color", "red")).startsWith("2 unknown option --color");
        assertThat(run("dlt", "list", "--reason")).startsWith("2 --reason needs a value");
        assertThat(run("parked", "skip", "id", "--from", "2", "--to", "2", "--operator", "alice"))
                .startsWith("2 parked skip needs --reason");
        assertThat(run("parked", "skip", "id", "--from", "two", "--to", "2", "--operator", "a", "--reason", "r"))
                .startsWith("2 ");
    }

    @Test
    void anUnreachableConsumerIsAFailureNotAUsageError() {
        assertThat(run("dlt", "list", "--url", "http://127.0.0.1:" + Ports.free()))
                .startsWith("1 could not reach http://127.0.0.1:");
    }

    /** The exit status, a space, then what it printed. */
    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = OperatorCli.run(List.of(args), Map.of(), print, print);
        return status + " " + out.toString(StandardCharsets.UTF_8);
    }
}
