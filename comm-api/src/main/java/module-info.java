/**
 * unicomm's API ({@code dev.unicomm.api}, front door {@link dev.unicomm.api.Unicomm}) and backend SPI
 * ({@code dev.unicomm.spi}, and {@code dev.unicomm.spi.support}: building blocks backends share). No native
 * code, no backend. The {@code internal} packages are not API:
 * the validating layer ({@code internal.checked}, also the JFR events) is exported to nobody, the
 * rendezvous store ({@code internal.rendezvous}) only to the launcher (the per-job TLS key) and the
 * conformance kit (its fault rules join a store without opening a backend).
 */
module dev.unicomm.api {
    requires jdk.jfr;

    exports dev.unicomm.api;
    exports dev.unicomm.spi;
    exports dev.unicomm.spi.support;
    exports dev.unicomm.internal.rendezvous to
            dev.unicomm.launch,
            dev.unicomm.conformance;

    uses dev.unicomm.spi.CommBackendProvider;
    uses dev.unicomm.spi.CollectivesProvider;
    uses dev.unicomm.spi.MoeProvider;
    uses dev.unicomm.spi.SettingsProvider;

    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.internal.checked.CoreSettings;
}
