/**
 * unicomm's UCX backend: the SPI over UCX's UCP (libucp.so.0, loaded lazily through java.lang.foreign;
 * no JNI, no shim), for jobs across hosts on any network UCX drives.
 */
module dev.unicomm.backend.ucx {
    requires dev.unicomm.api;

    exports dev.unicomm.backend.ucx;

    provides dev.unicomm.spi.CommBackendProvider with
            dev.unicomm.backend.ucx.UcxBackendProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.backend.ucx.UcxSettingsProvider;
}
