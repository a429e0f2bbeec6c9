/** Portable collectives and portable MoE dispatch/combine over the API's RMA + signals. */
module dev.unicomm.collectives {
    requires dev.unicomm.api;
    // Optional: the MoE reductions use the Vector API when the JVM runs with --add-modules jdk.incubator.vector.
    requires static jdk.incubator.vector;
    provides dev.unicomm.spi.MoeProvider with dev.unicomm.collectives.moe.PortableMoeProvider;
}
