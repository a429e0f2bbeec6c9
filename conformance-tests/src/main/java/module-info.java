/**
 * unicomm's conformance kit: abstract JUnit 5 suites that every backend runs over real
 * multi-process jobs, and a runner that turns a run into a per-backend report.
 */
module dev.unicomm.conformance {
    requires transitive dev.unicomm.api;
    requires dev.unicomm.launch;
    requires transitive dev.unicomm.moe.reference;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.launcher;
    requires org.junit.platform.reporting;

    exports dev.unicomm.conformance;
    exports dev.unicomm.conformance.configured;
    exports dev.unicomm.conformance.collectives;
    exports dev.unicomm.conformance.kittest;
    // JUnit instantiates the suites and calls their test methods reflectively.
    opens dev.unicomm.conformance to
            org.junit.platform.commons;
    opens dev.unicomm.conformance.configured to
            org.junit.platform.commons;
    opens dev.unicomm.conformance.collectives to
            org.junit.platform.commons;
    opens dev.unicomm.conformance.kittest to
            org.junit.platform.commons;

    uses dev.unicomm.spi.CommBackendProvider;

    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.conformance.KitSettingsProvider;
}
