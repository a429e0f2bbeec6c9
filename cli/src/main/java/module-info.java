/** The {@code unicomm} command: info, run and conformance here; {@code bench} comes from the benchmarks module. */
module dev.unicomm.cli {
    requires dev.unicomm.api;
    requires dev.unicomm.launch;
    requires dev.unicomm.benchmarks;
    requires info.picocli;
    requires dev.unicomm.conformance;
    requires org.junit.platform.engine;
    requires org.junit.jupiter.api;

    opens dev.unicomm.cli to
            info.picocli;

    uses dev.unicomm.spi.CommBackendProvider;
}
