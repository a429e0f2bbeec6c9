/**
 * The {@code shm} backend. Public: only {@link dev.unicomm.backend.shm.ShmBackendProvider} and its settings
 * ({@link dev.unicomm.backend.shm.ShmSettingsProvider}), both found through the SPI; users
 * reach everything else through {@code dev.unicomm.api.Unicomm}.
 *
 * <p>Layout of one PE's shared file: a control area ({@code Control}: header, collective mailbox,
 * team slots with barrier flags) followed by the symmetric heap. Every PE maps every PE's file, so
 * RMA is a copy ({@code ShmRma}), allocation is a deterministic allocator plus an agreement check
 * ({@code ShmHeap}), barriers are dissemination barriers on flag lines ({@code ShmTeam}), and waits
 * spin, yield, then park, bounded by the timeout and watching for dead peers ({@code Waiter},
 * {@code Watchdog}).
 */
package dev.unicomm.backend.shm;
