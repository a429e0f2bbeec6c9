/** Portable collectives (barrier, broadcast, allgather, allreduce, reduce-scatter, alltoall(v)) and portable MoE dispatch/combine over RMA + signals. */
module dev.unicomm.collectives {
    requires dev.unicomm.api;
    exports dev.unicomm.collectives;
    provides dev.unicomm.spi.CollectivesProvider with dev.unicomm.collectives.PortableCollectivesProvider;
    provides dev.unicomm.spi.MoeProvider with dev.unicomm.collectives.moe.PortableMoeProvider;
}
