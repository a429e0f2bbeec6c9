/**
 * The {@code nvshmem} backend. Public: only {@link dev.unicomm.backend.nvshmem.NvshmemBackendProvider} and
 * {@link dev.unicomm.backend.nvshmem.NvshmemSettingsProvider} (its settings),
 * found through the SPI; users reach everything else through {@code dev.unicomm.api.Unicomm}. Depends on
 * {@code dev.unicomm.api}, {@code dev.unicomm.spi} and its own {@code internal} packages; no other module
 * may depend on it.
 */
package dev.unicomm.backend.nvshmem;
