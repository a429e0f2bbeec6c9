/** JMH micro-benchmarks of unicomm's per-call overhead (run from the shaded jar, class path). */
open module dev.unicomm.benchmarks {
    requires dev.unicomm.api;
    requires dev.unicomm.collectives;
    requires jmh.core;
    exports dev.unicomm.benchmarks;
}
