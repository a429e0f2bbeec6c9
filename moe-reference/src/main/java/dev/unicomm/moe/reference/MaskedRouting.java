package dev.unicomm.moe.reference;

import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeConfig;
import java.util.Arrays;

/**
 * The kit's own reading of an {@link ExpertMask} (semantics §7.7), written apart from any
 * implementation: experts stay where the original job of {@code jobSize} ranks placed them
 * ({@code L = numExperts / jobSize} each); a buffer masked this way must behave like a plain buffer
 * over the active ranks' experts, numbered compactly (active rank {@code i}'s expert {@code j} is
 * {@code i*L + j}), fed the top-k ids with every entry of an inactive rank's expert turned into -1.
 */
public final class MaskedRouting {
    private final ExpertMask mask;
    private final int numExperts, local;
    private final int[] active;

    public MaskedRouting(ExpertMask mask, int numExperts) {
        if (numExperts % mask.jobSize() != 0)
            throw new IllegalArgumentException(
                    "numExperts " + numExperts + " must be a multiple of the job size " + mask.jobSize());
        this.mask = mask;
        this.numExperts = numExperts;
        this.local = numExperts / mask.jobSize();
        this.active = mask.activeJobRanks();
    }

    public ExpertMask mask() {
        return mask;
    }

    /** The plain config the masked buffer must behave like. */
    public MoeConfig compactConfig(MoeConfig c) {
        return new MoeConfig(
                c.mode(), local * active.length, c.hidden(), c.maxTokensPerRank(), c.numTopk(), c.useFp8());
    }

    private long compact(long e) {
        if (e < 0) return -1;
        int i = Arrays.binarySearch(active, (int) (e / local));
        return i < 0 ? -1 : (long) i * local + e % local;
    }

    /** Original ids to compact ids, dropped entries -1. */
    public long[] compact(long[] ids) {
        long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = compact(ids[i]);
        return out;
    }

    /**
     * Original ids with every entry naming an inactive rank's expert turned into -1, numbering kept: how a
     * buffer of the whole job whose active ranks were set on the open buffer
     * ({@code MoeBuffer.setActiveRanks}) must treat them.
     */
    public long[] dropInactive(long[] ids) {
        long[] out = ids.clone();
        for (int i = 0; i < out.length; i++) if (out[i] >= 0 && !mask.rankActive((int) (out[i] / local))) out[i] = -1;
        return out;
    }

    /** Per token of {@code ids [T, k]}, the entries naming an inactive rank's expert. */
    public int[] dropped(long[] ids, int k) {
        int[] d = new int[ids.length / k];
        for (int i = 0; i < ids.length; i++) if (ids[i] >= 0 && compact(ids[i]) < 0) d[i / k]++;
        return d;
    }

    /** A batch as the compact buffer would get it. */
    public TokenBatch compact(TokenBatch b) {
        return new TokenBatch(b.tokens(), b.x(), b.scales(), compact(b.topkIdx()), b.topkWeights());
    }

    /** A compact layout shown in the original numbering: inactive ranks and their experts get nothing. */
    public MoeReference.Layout expand(MoeReference.Layout c, int tokens) {
        int job = mask.jobSize(), n = active.length;
        int[] perRank = new int[job], perExpert = new int[numExperts];
        boolean[] inRank = new boolean[tokens * job];
        for (int i = 0; i < n; i++) {
            perRank[active[i]] = c.tokensPerRank()[i];
            for (int j = 0; j < local; j++) perExpert[active[i] * local + j] = c.tokensPerExpert()[i * local + j];
            for (int t = 0; t < tokens; t++) inRank[t * job + active[i]] = c.isTokenInRank()[t * n + i];
        }
        return new MoeReference.Layout(perRank, perExpert, inRank);
    }
}
