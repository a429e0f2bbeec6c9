/**
 * Building blocks that backends share (part of the SPI): a communicator's rank, size and parts
 * ({@link dev.unicomm.spi.support.BackendCommunicatorBase}), the bookkeeping of a symmetric buffer
 * ({@link dev.unicomm.spi.support.HeapBlock}), a host heap agreed through the rendezvous store
 * ({@link dev.unicomm.spi.support.StoreHeap}), teams that are lists of world ranks
 * ({@link dev.unicomm.spi.support.RankListTeam}, {@link dev.unicomm.spi.support.StoreTeam}), and an
 * endpoint's region table and argument checks ({@link dev.unicomm.spi.support.LocalRegions},
 * {@link dev.unicomm.spi.support.EndpointChecks}). Backends may use or extend them; nothing here knows a
 * backend, and it depends on {@code dev.unicomm.api} and {@code dev.unicomm.spi} only.
 */
package dev.unicomm.spi.support;
