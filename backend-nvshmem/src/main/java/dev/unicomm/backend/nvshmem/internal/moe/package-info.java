/**
 * The nvshmem backend's native MoE: the buffer that launches the dispatch/combine kernels
 * ({@code NvshmemMoe}), its symmetric layout, device memory, handles, completion and kernel limits. Reaches
 * the communicator only through the narrow {@code MoeHost} port of {@code internal}; nothing outside
 * backend-nvshmem may depend on it.
 */
package dev.unicomm.backend.nvshmem.internal.moe;
