/**
 * The portable MoE dispatch/combine (normal, low-latency and two-level), found through the SPI
 * ({@code PortableMoeProvider}): routing, the row pushes (direct stores into mapped peers or RMA) and the row
 * arithmetic. Used only by {@code dev.unicomm.collectives}' providers; nothing outside the module may depend on it.
 */
package dev.unicomm.collectives.moe;
