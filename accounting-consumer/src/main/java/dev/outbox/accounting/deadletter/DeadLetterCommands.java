package dev.outbox.accounting.deadletter;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import dev.outbox.accounting.OperatorCli;
import tools.jackson.core.type.TypeReference;

import static dev.outbox.accounting.OperatorCli.text;

/**
 * {@code dlt list|groups|show|replay|replays}: {@link DeadLetterAdmin}'s endpoints from the command line ({@link
 * OperatorCli}).
 */
public final class DeadLetterCommands {

    private static final String SELECTION = "reason cause type after before";

    private DeadLetterCommands() {}

    /** @return the exit status; a usage error throws {@link IllegalArgumentException} */
    public static int run(
            String command,
            List<String> positions,
            Map<String, String> options,
            OperatorCli.Admin admin,
            PrintStream out)
            throws IOException, InterruptedException {
        return switch (command) {
            case "list" -> list(options, admin, out);
            case "show" -> {
                if (positions.size() != 1) {
                    throw new IllegalArgumentException("one record");
                }
                yield show(positions.get(0), options, admin, out);
            }
            case "replay" -> replay(positions, options, admin, out);
            case "groups" -> groups(options, admin, out);
            case "replays" -> replays(options, admin, out);
            default -> throw new IllegalArgumentException("unknown command: dlt " + command);
        };
    }

    private static int list(Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        List<DeadLetter> letters = admin.get(
                "/admin/dead-letters" + OperatorCli.query(options, (SELECTION + " limit").split(" ")),
                new TypeReference<>() {});
        if (letters.isEmpty()) {
            out.println("no dead letters" + (options.isEmpty() ? "" : " match"));
        }
        for (DeadLetter d : letters) {
            out.printf(
                    "%d@%d  %s  age %ds  %s v%s  payment %s  event %s  from %s-%s@%s%s%n    reason: %s%n",
                    d.partition(),
                    d.offset(),
                    d.deadLetteredAt(),
                    d.ageSeconds(),
                    text(d.eventType()),
                    text(d.aggregateVersion()),
                    text(d.paymentId()),
                    text(d.eventId()),
                    text(d.originalTopic()),
                    text(d.originalPartition()),
                    text(d.originalOffset()),
                    replayed(d),
                    text(d.reason()));
        }
        return 0;
    }

    private static int show(String position, Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        DeadLetter d = admin.get(
                "/admin/dead-letters/" + path(position)
                        + (options.containsKey("payload") ? "?includePayload=true" : ""),
                new TypeReference<>() {});
        out.printf(
                """
                dead letter      %d@%d (dead-lettered %s, %ds ago)%s
                reason           %s
                failed at        %s-%s@%s
                event            %s %s v%s, payment %s
                """,
                d.partition(),
                d.offset(),
                d.deadLetteredAt(),
                d.ageSeconds(),
                replayed(d),
                text(d.reason()),
                text(d.originalTopic()),
                text(d.originalPartition()),
                text(d.originalOffset()),
                text(d.eventId()),
                text(d.eventType()),
                text(d.aggregateVersion()),
                text(d.paymentId()));
        for (String earlier : d.history()) {
            out.println("earlier          " + earlier);
        }
        out.println("payload          " + text(d.payload()));
        return 0;
    }

    private static int replay(
            List<String> positions, Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        DeadLetters.Replayed result;
        if (positions.size() == 1 && options.isEmpty()) {
            result = admin.post(
                    "/admin/dead-letters/" + path(positions.get(0)) + "/replay", null, DeadLetters.Replayed.class);
        } else if (positions.isEmpty() && options.containsKey("dry-run")) {
            DeadLetterAdmin.DryRun dryRun = admin.post(
                    "/admin/dead-letters/replay" + OperatorCli.query(options, (SELECTION + " all dry-run").split(" ")),
                    null,
                    DeadLetterAdmin.DryRun.class);
            out.printf(
                    "would replay %d dead letters (as of %s, digest %s)%n",
                    dryRun.deadLetters(), dryRun.asOf(), dryRun.digest());
            for (DeadLetter d : dryRun.first()) {
                out.printf("  %d@%d  %s  event %s%n", d.partition(), d.offset(), d.deadLetteredAt(), text(d.eventId()));
            }
            out.printf(
                    "exactly these: the same selection with --before %s --expect %s%n", dryRun.asOf(), dryRun.digest());
            return 0;
        } else if (positions.isEmpty() && !options.isEmpty()) {
            result = admin.post(
                    "/admin/dead-letters/replay" + OperatorCli.query(options, (SELECTION + " all expect").split(" ")),
                    null,
                    DeadLetters.Replayed.class);
        } else {
            throw new IllegalArgumentException("replay one record, a selection, or --all");
        }
        out.printf("replayed %d, already replayed before %d%n", result.replayed(), result.alreadyReplayed());
        return 0;
    }

    private static int groups(Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        List<DeadLetter.Group> groups =
                admin.get("/admin/dead-letters/groups" + OperatorCli.query(options, "limit"), new TypeReference<>() {});
        if (groups.isEmpty()) {
            out.println("no dead letters");
        }
        for (DeadLetter.Group g : groups) {
            out.printf(
                    "%d  %s  %s  first %s  last %s%n    cause: %s%n",
                    g.deadLetters(), g.causeClass(), text(g.eventType()), g.firstSeen(), g.lastSeen(), g.cause());
        }
        return 0;
    }

    private static int replays(Map<String, String> options, OperatorCli.Admin admin, PrintStream out)
            throws IOException, InterruptedException {
        List<DeadLetterReplays.Request> requests = admin.get(
                "/admin/dead-letters/replays" + OperatorCli.query(options, "limit"), new TypeReference<>() {});
        if (requests.isEmpty()) {
            out.println("no replay requests");
        }
        for (DeadLetterReplays.Request r : requests) {
            out.printf(
                    "%s by %s: %d taken, %d replayed, %d replayed before (digest %s)%n    selection: %s%n",
                    r.requestedAt(),
                    r.requestedBy(),
                    r.deadLetters(),
                    r.replayed(),
                    r.alreadyReplayed(),
                    r.digest(),
                    r.selection());
        }
        return 0;
    }

    /** {@code 1@17} -> {@code 1/17} */
    private static String path(String position) {
        String[] parts = position.split("@", -1);
        if (parts.length != 2 || !parts[0].matches("\\d{1,9}") || !parts[1].matches("\\d{1,18}")) {
            throw new IllegalArgumentException("a dead letter is PARTITION@OFFSET, e.g. 1@17");
        }
        return parts[0] + "/" + parts[1];
    }

    private static String replayed(DeadLetter d) {
        DeadLetterReplays.Replay r = d.replayed();
        return r == null
                ? ""
                : "  REPLAYED by " + r.by() + " at " + r.at() + " to partition " + text(r.targetPartition()) + "@"
                        + text(r.targetOffset());
    }
}
