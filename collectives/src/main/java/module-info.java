/** Portable collectives and portable MoE dispatch/combine over the API's RMA + signals. */
module dev.unicomm.collectives {
    requires dev.unicomm.api;
    provides dev.unicomm.spi.MoeProvider with dev.unicomm.collectives.moe.PortableMoeProvider;
}
