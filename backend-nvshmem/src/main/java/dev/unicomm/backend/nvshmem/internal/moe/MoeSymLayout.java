package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig;

/**
 * Where things sit in a native MoE buffer's symmetric block (same offsets on every PE).
 * Normal mode: count matrix [2][R][R+L] (tagged int64), arrival and staging counters [R], the
 * receive area [R*T rows of 2H bytes] (FP8 rows use H bytes, their scales start at R*T*H), ids
 * [R*T][K] int64, weights [R*T][K] fp32. Low-latency mode: count matrix [2][R][E], counters
 * [2][R] each, two generations of [L][R*T] rows of 2H bytes (FP8: H-byte rows, then scales), and
 * the push combine's row maps [2][R][T][K] (tagged int64, in recvIdx), weights [2][R][T][K]
 * (tagged fp32 in int64, in recvW) and per-(source PE, token) sums [2][R][T] of 4H bytes (comb).
 */
public record MoeSymLayout(
        long cnt,
        long done,
        long ready,
        long recv,
        long recvScales,
        long recvIdx,
        long recvW,
        long region,
        long comb,
        long total) {
    private static final long ALIGN = 256;

    public static MoeSymLayout of(MoeConfig cfg, int ranks) {
        long r = ranks, t = cfg.maxTokensPerRank(), h = cfg.hidden(), k = cfg.numTopk(), l = cfg.numLocalExperts(ranks);
        if (cfg.mode() == MoeConfig.Mode.NORMAL) {
            long cnt = 0,
                    done = align(cnt + 2 * r * (r + l) * 8),
                    ready = align(done + r * 8),
                    recv = align(ready + r * 8);
            long idx = align(recv + r * t * 2 * h), w = align(idx + r * t * k * 8);
            return new MoeSymLayout(cnt, done, ready, recv, recv + r * t * h, idx, w, 0, 0, align(w + r * t * k * 4));
        }
        long e = cfg.numExperts();
        long cnt = 0,
                done = align(cnt + 2 * r * e * 8),
                ready = align(done + 2 * r * 8),
                recv = align(ready + 2 * r * 8);
        long region = align(l * r * t * 2 * h);
        long map = recv + 2 * region, w = align(map + 2 * r * t * k * 8), comb = align(w + 2 * r * t * k * 8);
        return new MoeSymLayout(cnt, done, ready, recv, 0, map, w, region, comb, comb + 2 * r * t * 4 * h);
    }

    static long align(long v) {
        return (v + ALIGN - 1) & -ALIGN;
    }
}
