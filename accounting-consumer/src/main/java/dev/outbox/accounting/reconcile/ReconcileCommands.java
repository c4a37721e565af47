package dev.outbox.accounting.reconcile;

import java.io.IOException;
import java.io.PrintStream;

import dev.outbox.accounting.OperatorCli;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code reconcile status}: {@link ReconcileAdmin}'s answer from the command line, as JSON ({@link OperatorCli}). */
public final class ReconcileCommands {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ReconcileCommands() {}

    /** @return the exit status; a usage error throws {@link IllegalArgumentException} */
    public static int run(String command, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        if (!command.equals("status")) {
            throw new IllegalArgumentException("unknown command: reconcile " + command);
        }
        JsonNode status = admin.get("/admin/reconcile", new TypeReference<>() {});
        out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(status));
        return 0;
    }
}
