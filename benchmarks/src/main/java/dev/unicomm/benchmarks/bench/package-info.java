/**
 * The {@code unicomm bench} commands (rma, collectives, moe, p2p, soak, device rma), the rank workers they
 * launch, and their reports, plots and bounds. Depends on the API, the portable collectives, the launcher and
 * the MoE reference; only the cli may depend on it (it registers the commands).
 */
package dev.unicomm.benchmarks.bench;
