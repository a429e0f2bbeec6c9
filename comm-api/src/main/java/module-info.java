/** unicomm's API and backend SPI. No native code, no backend. */
module dev.unicomm.api {
    // JFR events of the validating layer (dev.unicomm.core): lifecycle, RMA batches, collectives, MoE.
    requires jdk.jfr;
    exports dev.unicomm.api;
    exports dev.unicomm.spi;
    // The validating layer and rendezvous store are shared with other unicomm modules only.
    exports dev.unicomm.core to dev.unicomm.collectives, dev.unicomm.conformance, dev.unicomm.cli,
            dev.unicomm.backend.shm, dev.unicomm.backend.rdma, dev.unicomm.backend.nvshmem, dev.unicomm.backend.ascend;
    exports dev.unicomm.core.store to dev.unicomm.collectives, dev.unicomm.conformance, dev.unicomm.cli,
            dev.unicomm.backend.shm, dev.unicomm.backend.rdma, dev.unicomm.backend.nvshmem, dev.unicomm.backend.ascend;

    uses dev.unicomm.spi.CommBackendProvider;
    uses dev.unicomm.spi.CollectivesProvider;
    uses dev.unicomm.spi.MoeProvider;
}
