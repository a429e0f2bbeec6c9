/** The {@code unicomm} command. */
module dev.unicomm.cli {
    requires dev.unicomm.api;
    requires info.picocli;
    opens dev.unicomm.cli to info.picocli;
    uses dev.unicomm.spi.CommBackendProvider;
}
