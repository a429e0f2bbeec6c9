/**
 * unicomm's conformance kit: abstract JUnit 5 suites that every backend runs over real
 * multi-process jobs, and the plain-Java MoE reference ({@code dev.unicomm.conformance.moe}).
 */
module dev.unicomm.conformance {
    requires transitive dev.unicomm.api;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.launcher;
    requires org.junit.platform.reporting;

    exports dev.unicomm.conformance.moe;

    uses dev.unicomm.spi.CommBackendProvider;
}
