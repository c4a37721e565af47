package dev.outbox.accounting.ledger;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import dev.outbox.accounting.OperatorCli;
import tools.jackson.core.type.TypeReference;

/** {@code parked list|skip|audit}: {@link ParkedAdmin}'s endpoints from the command line ({@link OperatorCli}). */
public final class ParkedCommands {

    private ParkedCommands() {}

    /** @return the exit status; a usage error throws {@link IllegalArgumentException} */
    public static int run(
            String command, List<String> ids, Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        return switch (command) {
            case "list" -> list(options, admin, out);
            case "skip" -> {
                if (ids.size() != 1) {
                    throw new IllegalArgumentException("one id");
                }
                yield skip(ids.get(0), options, admin, out);
            }
            case "audit" -> audit(options, admin, out);
            default -> throw new IllegalArgumentException("unknown command: parked " + command);
        };
    }

    private static int list(Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        List<ParkedAdmin.ParkedPayment> payments =
                admin.get("/admin/parked" + OperatorCli.query(options, "payment"), new TypeReference<>() {});
        if (payments.isEmpty()) {
            out.println("no parked events");
        }
        for (ParkedAdmin.ParkedPayment p : payments) {
            out.printf(
                    "payment %s  last applied v%d  missing v%d..v%d  oldest parked %ds%n",
                    p.paymentId(), p.lastAppliedVersion(), p.missingFrom(), p.missingTo(), p.oldestAgeSeconds());
            for (ParkedAdmin.ParkedEvent e : p.events()) {
                out.printf(
                        "    v%d %s event %s parked %s (%ds)%n",
                        e.version(), e.eventType(), e.eventId(), e.parkedAt(), e.ageSeconds());
            }
        }
        return 0;
    }

    private static int skip(String payment, Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        for (String required : List.of("from", "to", "operator", "reason")) {
            if (!options.containsKey(required)) {
                throw new IllegalArgumentException("parked skip needs --" + required);
            }
        }
        ParkedAdmin.SkipRequest request = new ParkedAdmin.SkipRequest(
                Long.parseLong(options.get("from")),
                Long.parseLong(options.get("to")),
                options.get("operator"),
                options.get("reason"));
        GapResolutions.Resolution r = admin.post(
                "/admin/parked/" + OperatorCli.encode(payment) + "/skip", request, GapResolutions.Resolution.class);
        out.printf(
                "skipped v%d..v%d of payment %s; %d parked events applied; audited: %s (%s) at %s: %s%n",
                r.skippedFrom(),
                r.skippedTo(),
                r.paymentId(),
                r.applied(),
                r.operator(),
                r.principal(),
                r.resolvedAt(),
                r.reason());
        return 0;
    }

    private static int audit(Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        List<GapResolutions.Resolution> rows =
                admin.get("/admin/gap-resolutions" + OperatorCli.query(options, "payment"), new TypeReference<>() {});
        if (rows.isEmpty()) {
            out.println("no gaps skipped");
        }
        for (GapResolutions.Resolution r : rows) {
            out.printf(
                    "%s  payment %s  skipped v%d..v%d  %d parked applied  by %s (%s): %s%n",
                    r.resolvedAt(),
                    r.paymentId(),
                    r.skippedFrom(),
                    r.skippedTo(),
                    r.applied(),
                    r.operator(),
                    r.principal(),
                    r.reason());
        }
        return 0;
    }
}
