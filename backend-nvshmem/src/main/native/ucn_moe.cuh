/*
 * MoE dispatch/combine kernels (included by ucn_ops.cu: one translation unit, one error slot),
 * one header per mode and concern, in the order below (DeepEP keeps its kernels apart the same way).
 *
 * Every PE of the job maps every other PE's symmetric block (nvshmem_ptr), so tokens move with
 * plain loads and stores between PEs' GPU memory: the sender writes rows straight into the
 * receiver's receive area, the combine pulls rows back and sums them. Coordination is through
 * words in the symmetric block:
 *   - counts, tagged with the operation's sequence number in the high 32 bits, so a reader
 *     knows a value is this operation's (two parities: a fast PE can be one operation ahead);
 *   - monotonic arrival counters (each block of each PE adds 1 when its writes are fenced),
 *     compared with a target the host tracks; never reset, so no reset can race an add.
 * Every spin has a deadline (the communicator's timeout): a dead peer ends as an error record
 * (err[0..3]) that the host turns into an exception, never a hang.
 * Orderings follow notes/moe-semantics.md: receivers get tokens by source rank, then source index.
 */
#include <cuda_fp8.h>
#include <stdlib.h>
#include "ucn_moe.h"

#include "ucn_moe_sync.cuh"
#include "ucn_moe_trace.cuh"
#include "ucn_moe_signal.cuh"
#include "ucn_moe_rows.cuh"
#include "ucn_moe_layout.cuh"
#include "ucn_moe_normal_dispatch.cuh"
#include "ucn_moe_normal_combine.cuh"
#include "ucn_moe_ll_pack.cuh"
#include "ucn_moe_ll_dispatch.cuh"
#include "ucn_moe_ll_combine.cuh"
#include "ucn_moe_host.cuh"
