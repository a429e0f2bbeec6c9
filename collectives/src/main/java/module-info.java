/** Portable collectives: barrier, broadcast, allgather, allreduce, reduce-scatter, alltoall(v) over RMA + signals. */
module dev.unicomm.collectives {
    requires dev.unicomm.api;
    exports dev.unicomm.collectives;
    provides dev.unicomm.spi.CollectivesProvider with dev.unicomm.collectives.PortableCollectivesProvider;
}
