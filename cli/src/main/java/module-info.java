/** The {@code unicomm} command. */
module dev.unicomm.cli {
    requires dev.unicomm.api;
    requires dev.unicomm.launch;
    requires info.picocli;
    requires jdk.jfr;
    requires java.desktop;
    requires org.jfree.jfreechart;
    requires dev.unicomm.conformance;
    requires org.junit.platform.engine;
    requires org.junit.jupiter.api;
    opens dev.unicomm.cli to info.picocli;
    opens dev.unicomm.cli.bench to info.picocli;
    exports dev.unicomm.cli.bench;
    uses dev.unicomm.spi.CommBackendProvider;
}
