/** Portable collectives (barrier, broadcast, allgather, allreduce, reduce-scatter, alltoall(v)) and portable MoE dispatch/combine over RMA + signals. */
module dev.unicomm.collectives {
    requires dev.unicomm.api;
    // Optional: the MoE reductions use the Vector API when the JVM runs with --add-modules jdk.incubator.vector.
    requires static jdk.incubator.vector;

    exports dev.unicomm.collectives;
    exports dev.unicomm.collectives.fp8;

    provides dev.unicomm.spi.CollectivesProvider with
            dev.unicomm.collectives.PortableCollectivesProvider;
    provides dev.unicomm.spi.MoeProvider with
            dev.unicomm.collectives.moe.PortableMoeProvider;
    provides dev.unicomm.spi.SettingsProvider with
            dev.unicomm.collectives.CollectivesSettingsProvider;
}
