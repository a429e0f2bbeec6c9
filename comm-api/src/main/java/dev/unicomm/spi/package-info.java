/**
 * The backend SPI. A backend ships a {@link dev.unicomm.spi.CommBackendProvider} registered in
 * {@code META-INF/services} and in its {@code module-info} ({@code provides}); the API finds it
 * with {@link java.util.ServiceLoader}. Everything a backend receives through
 * {@link dev.unicomm.spi.BackendCommunicator} has already been validated by the API layer
 * (bounds, PE range, alignment, open state, memory kind), so backends may pass it to native code.
 */
package dev.unicomm.spi;
