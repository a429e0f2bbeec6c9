/**
 * unicomm's RDMA backend: verbs (rdma-core's libibverbs, loaded lazily) through a JavaCPP-bound
 * shim. Provides DLSlime-style point-to-point endpoints and the SPI's RMA over RC queue pairs.
 */
module dev.unicomm.backend.rdma {
    requires dev.unicomm.api;
    requires org.bytedeco.javacpp;

    exports dev.unicomm.backend.rdma;
    // JavaCPP's Loader reads the binding's annotations and extracts its JNI library from this package.
    opens dev.unicomm.backend.rdma.internal to
            org.bytedeco.javacpp;

    provides dev.unicomm.spi.CommBackendProvider with
            dev.unicomm.backend.rdma.RdmaBackendProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.backend.rdma.RdmaSettingsProvider;
}
