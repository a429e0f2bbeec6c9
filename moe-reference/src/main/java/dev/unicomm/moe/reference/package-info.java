/**
 * The MoE reference ({@code docs/spec/moe.md}) in plain Java, written for clarity, not speed: bf16 and FP8
 * e4m3 ({@link dev.unicomm.moe.reference.Bf16}, {@link dev.unicomm.moe.reference.Fp8E4m3}), what one rank
 * should see ({@link dev.unicomm.moe.reference.MoeReference}), reproducible inputs
 * ({@link dev.unicomm.moe.reference.MoeScenario}) and the check of a live job against them
 * ({@link dev.unicomm.moe.reference.MoeConformance}). Depends on {@code dev.unicomm.api} only; the conformance
 * kit, the benchmarks and tests may depend on it, no backend's main code and no implementation of the API may.
 */
package dev.unicomm.moe.reference;
