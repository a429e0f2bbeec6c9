/**
 * The {@code rdma} backend (ibverbs). Public: {@link dev.unicomm.backend.rdma.RdmaBackendProvider}, found
 * through the SPI with its settings ({@link dev.unicomm.backend.rdma.RdmaSettingsProvider}), and
 * {@link dev.unicomm.backend.rdma.RdmaEndpoints}, the transfer endpoints' entry. Depends
 * on {@code dev.unicomm.api}, {@code dev.unicomm.spi} and its own {@code internal} package; no other backend
 * may depend on it.
 */
package dev.unicomm.backend.rdma;
