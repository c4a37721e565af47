package dev.outbox.local;

import java.util.List;

/**
 * The relay's JVM options wherever it is started as deployed (the local run, the soak's harness; compose sets the same
 * in {@code JAVA_TOOL_OPTIONS}): its restart is on the delivery path, and half the CPU of its start-up is the JIT's
 * optimizing compiler (C2) compiling code that runs only while Spring and the engine start. With C2's thresholds ten
 * times the default, start-up code stays in C1 and the relay reaches streaming on about a quarter less CPU, while the
 * per-event code, run hundreds of thousands of times a minute, is compiled by C2 as before (measured in
 * docs/benchmarks.md).
 */
public final class RelayJvm {

    public static final List<String> OPTIONS = List.of(
            "-XX:Tier4InvocationThreshold=50000",
            "-XX:Tier4MinInvocationThreshold=6000",
            "-XX:Tier4CompileThreshold=150000",
            "-XX:Tier4BackEdgeThreshold=400000");

    private RelayJvm() {}
}
