/**
 * The nvshmem backend's insides: the process-wide NVSHMEM state and library loading ({@code NvshmemProcess},
 * {@code NvLibrary}), the communicator, heap, RMA, teams, streams and device buffers, the settings, and the
 * only door to the native shim ({@code NvOps} over the generated JavaCPP binding). Nothing outside
 * backend-nvshmem may depend on it.
 */
package dev.unicomm.backend.nvshmem.internal;
