/*
 * Arguments and codes of the MoE kernels (ucn_moe.cuh and the headers it includes). The Java side (internal/NvMoeArgs.java)
 * fills a long[] in exactly this field order; every field is 64 bits.
 */
#ifndef UCN_MOE_H
#define UCN_MOE_H

typedef struct {
    long long rank, nranks, tokens, hidden, topk, experts, local_experts, max_tokens;
    long long recv_tokens;          /* normal combine: rows of y (N) */
    long long fp8;                  /* 1: data is e4m3 (hidden bytes per row) + fp32 scales per 128 channels */
    long long x, x_scales;          /* dispatch input rows and (fp8) scales, device */
    long long topk_idx, topk_w;     /* int64 [tokens][topk], fp32 [tokens][topk] (0: none), device */
    long long peers;                /* device int64 [nranks]: the symmetric block's base as mapped in this process */
    long long off_cnt, off_recv, off_recv_scales, off_recv_idx, off_recv_w, off_done, off_ready; /* in the block */
    long long region;               /* bytes of one receive generation (low-latency) */
    long long pos, send_off;        /* normal routing: int32 [tokens][nranks] (-1: not sent), int32 [nranks] */
    long long info;                 /* pinned int32: normal N, then per-local-expert counts; low-latency counts */
    long long err;                  /* pinned int64 [8]: first error (code, details) */
    long long out, out_w;           /* combine outputs, device */
    long long y, y_w;               /* combine inputs, device (0: already in the receive area) */
    long long gen;                  /* operation sequence number: count tags; parity = gen & 1 */
    long long expected;             /* what the arrival counters must reach */
    long long blocks, threads;
    long long timeout_ns;
    long long stream;
    long long route;                /* low-latency: device int32 [2][max_tokens][topk] (expert, slot) pairs per parity */
    long long recv_count;           /* low-latency: device int32 [2][local_experts] */
    long long layout_rank, layout_expert, layout_in_rank; /* layout outputs, device */
    long long host_slot;            /* pinned: [0] seq, [1..4] error record, [5] abort word (the host sets it when the
                                       job is aborted: every spin ends), from byte 64 the info ints */
    long long seq;                  /* written to host_slot[0] when the operation is complete */
    long long grid_done;            /* device uint32: blocks finished (the last one publishes, then resets it) */
    long long ctl;                  /* stream-ordered low-latency mode: device uint64 [3] = {generation, dispatches,
                                       combines}; the kernels read and advance it, so a captured CUDA graph replays
                                       with the same arguments (0: host-sequenced, gen/expected come from here) */
    long long transport;            /* 0: loads/stores through nvshmem_ptr mappings; 1: NVSHMEM device puts, gets and
                                       signals (PEs whose heaps are not mapped into each other: other nodes) */
    long long scratch;              /* transport 1: device bytes per warp (scratch_per_warp) for staged rows */
    long long scratch_per_warp;
    long long off_comb;             /* low-latency, load/store: the push combine's area [2][R][max_tokens] slots of 4*hidden
                                       bytes (one PE's sum of a token's experts: bf16 for one expert, else fp32); that
                                       mode's off_recv_idx is the row map and off_recv_w the weights, both
                                       [2][R][max_tokens][topk] int64 tagged with the generation in the high half */
    long long part_counts;          /* normal dispatch: device int32 [blocks][experts + nranks], each routing block's counts */
    long long active;               /* device int32 [nranks + 1]: this PE's active-rank mask (1 active, 0 not), then the
                                       count of inactive ranks; read at every use (data, not an argument: a CUDA graph
                                       replays with the mask of the moment); 0: every rank active */
    long long dropped;              /* device int32 [max_tokens]: per own token, top-k entries naming an inactive rank's
                                       expert (written by the dispatches only while a rank is inactive); 0: none */
    long long pre_barrier;          /* normal combine with an inactive rank: first a barrier of the active PEs on the
                                       ready counters, which must reach this (the nvshmem barrier would wait for the
                                       inactive PEs); 0: none (the host ran nvshmem's barrier, or none is needed) */
    long long elastic;              /* 1: a peer that does not answer within timeout_ns is marked inactive in `active`
                                       (UCN_MOE_ERR_LOST, not an error) and the operation goes on without it */
    long long host_mask;            /* elastic: pinned int32 [nranks], the host's mirror: a lost rank's word is zeroed
                                       before the error record, so the host learns every lost rank without a copy */
    long long all_live;             /* 1: the host knows every rank is active for this call (host-sequenced, not elastic,
                                       no inactive rank): the kernels take every rank as live without loading `active`
                                       (the low-latency ones in their unmasked variants, MASKED false, moe_view);
                                       0: they read the mask (stream-ordered calls, which a CUDA graph may replay after a
                                       change; elastic buffers, whose kernels mark peers gone themselves) */
} ucn_moe_args;

#define UCN_MOE_ARGS_WORDS ((int) (sizeof(ucn_moe_args) / sizeof(long long)))

/* err[0] codes; err[1..3] details. */
#define UCN_MOE_ERR_EXPERT 1     /* topk_idx[err1][err2] = err3 is outside [-1, experts) */
#define UCN_MOE_ERR_DUPLICATE 2  /* topk_idx[err1] names expert err3 twice (slot err2) */
#define UCN_MOE_ERR_TIMEOUT 3    /* waited err_ns for rank err1 (what: err2) */
#define UCN_MOE_ERR_TOPK 4       /* topk larger than the kernels support */
#define UCN_MOE_ERR_ABORTED 5    /* the host set the abort word while waiting for rank err1 (what: err2) */
#define UCN_MOE_ERR_LOST 6       /* elastic: rank err1 did not answer in time (what: err2) and is inactive now: not an
                                    error; the host reads the device mask to learn every rank found inactive */

#endif
