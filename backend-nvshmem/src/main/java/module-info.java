/** NVSHMEM on NVIDIA GPUs; natives (JavaCPP) only in the internal package. */
module dev.unicomm.backend.nvshmem {
    requires dev.unicomm.api;
    requires org.bytedeco.javacpp;

    opens dev.unicomm.backend.nvshmem.internal to
            org.bytedeco.javacpp;

    provides dev.unicomm.spi.CommBackendProvider with
            dev.unicomm.backend.nvshmem.NvshmemBackendProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.backend.nvshmem.NvshmemSettingsProvider;
}
