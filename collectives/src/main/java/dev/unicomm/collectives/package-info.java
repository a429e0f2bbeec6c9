/**
 * The portable collectives over the API's RMA and signals, for every backend without native ones
 * ({@code PortableCollectivesProvider}, found through the SPI), their settings and the choice of MoE
 * algorithm. Depends on {@code dev.unicomm.api} and {@code dev.unicomm.spi} only; no backend may depend on it.
 */
package dev.unicomm.collectives;
