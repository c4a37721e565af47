package dev.outbox.local;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The relay's JVM options wherever it is started as deployed (the local run, the soak's harness; compose sets the same
 * in {@code JAVA_TOOL_OPTIONS}): its restart is on the delivery path, and half the CPU of its start-up is the JIT's
 * optimizing compiler (C2) compiling code that runs only while Spring and the engine start. With C2's thresholds ten
 * times the default, start-up code stays in C1 and the relay reaches streaming on about a quarter less CPU, while the
 * per-event code, run hundreds of thousands of times a minute, is compiled by C2 as before (measured in
 * docs/benchmarks.md). Spring's own code is left to C1 altogether: no Spring method is on the relay's per-event path
 * (Debezium's engine, the relay's consumer, Kafka's producer), and Spring's bean and annotation lookups still reach
 * C2's thresholds while the context starts, where C2 spent about 1.7 of its 2.5 CPU-s before the stream began. A C2
 * node limit of 0 for those methods makes C2 give them up at once, and HotSpot then compiles them with C1 only. C1's
 * own thresholds are five times the default: code that runs a few hundred times while the relay starts stays in the
 * interpreter instead of being compiled with full profiling, and the relay reaches streaming on about a tenth less CPU
 * (C1's share falls by 40%, the main thread's rises by less), while per-event code is compiled by C1 after about a
 * thousand events instead of two hundred (measured in docs/operations.md and docs/benchmarks.md). Its
 * Spring context is the one generated ahead of time at build time (Spring AOT): no
 * configuration class is parsed and no condition evaluated while it starts (the relay builds it as it starts in a mode
 * other than cdc, or with a management port of its own: {@code CdcOnlyAotContext}).
 */
public final class RelayJvm {

    /** Spring's switch to the ahead-of-time context the relay's build generates. */
    public static final String AHEAD_OF_TIME_CONTEXT = "-Dspring.aot.enabled=true";

    /** C2 gives up Spring's methods at once (a node limit of 0), so they stay compiled by C1. */
    public static final String SPRING_IN_C1_ONLY = "-XX:CompileCommand=MaxNodeLimit,org/springframework/*.*,0";

    public static final List<String> OPTIONS = List.of(
            "-XX:Tier4InvocationThreshold=50000",
            "-XX:Tier4MinInvocationThreshold=6000",
            "-XX:Tier4CompileThreshold=150000",
            "-XX:Tier4BackEdgeThreshold=400000",
            "-XX:Tier3InvocationThreshold=1000",
            "-XX:Tier3MinInvocationThreshold=500",
            "-XX:Tier3CompileThreshold=10000",
            "-XX:Tier3BackEdgeThreshold=300000",
            "-XX:CompileCommand=quiet",
            SPRING_IN_C1_ONLY,
            AHEAD_OF_TIME_CONTEXT);

    /**
     * Where the relay's class-data archive is recorded up to (see {@link BootJar#startTrainedUntil}): the line Debezium
     * logs as its stream begins to process the WAL, with the option that makes it log that line.
     */
    public static final String TRAINED_UNTIL = "Processing messages";

    /**
     * The training run's options: a free port, and no management port of its own (the relay would then build its
     * context without the ahead-of-time one, {@code CdcOnlyAotContext}, and the archive would hold the classes of that
     * context instead of those the relay loads as deployed).
     */
    public static final List<String> TRAINING_OPTIONS = List.of(
            "-Dserver.port=0",
            "-Dlogging.level.io.debezium.connector.postgresql.PostgresStreamingChangeEventSource=INFO",
            AHEAD_OF_TIME_CONTEXT);

    /** The relay started as deployed: extracted, with a class-data archive recorded up to its stream's start. */
    public static JavaProcess.Builder start(Path execJar, Path workDir, Map<String, String> env) {
        JavaProcess.Builder builder = BootJar.startTrainedUntil(execJar, workDir, env, TRAINED_UNTIL, TRAINING_OPTIONS);
        OPTIONS.forEach(builder::jvmArg);
        return builder;
    }

    private RelayJvm() {}
}
