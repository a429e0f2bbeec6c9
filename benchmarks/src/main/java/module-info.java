/**
 * unicomm's benchmarks: the {@code unicomm bench} commands with their rank workers
 * ({@code dev.unicomm.benchmarks.bench}, registered by the cli) and the JMH micro-benchmarks
 * ({@code dev.unicomm.benchmarks}, run from the shaded jar on the class path). Open: JMH and picocli reflect.
 */
open module dev.unicomm.benchmarks {
    requires dev.unicomm.api;
    requires dev.unicomm.collectives;
    requires dev.unicomm.launch;
    requires dev.unicomm.moe.reference;
    requires info.picocli;
    requires jdk.jfr;
    requires java.desktop;
    requires java.management;
    // Optional: the MoE bench's combine bound reads with the Vector API where the JVM has it (its workers do).
    requires static jdk.incubator.vector;
    requires org.jfree.jfreechart;
    requires jmh.core;

    exports dev.unicomm.benchmarks;
    exports dev.unicomm.benchmarks.bench;

    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.benchmarks.bench.BenchSettingsProvider;
}
