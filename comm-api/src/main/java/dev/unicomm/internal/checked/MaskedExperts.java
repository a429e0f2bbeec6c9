package dev.unicomm.internal.checked;

import dev.unicomm.api.DType;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The id translation behind an {@link ExpertMask} (semantics §7.7). Users number experts over the
 * original job ({@code jobSize} ranks, {@code L} experts each); the buffer underneath is a plain one
 * over the active ranks only, whose expert {@code i*L + j} is the original expert {@code activeJobRanks[i]*L + j}.
 * Entries naming an inactive rank's expert become {@code -1} (an unused slot) there, so the
 * implementation neither sends them nor adds them up. Local expert ids ({@code e - r*L}) are the
 * same in both numberings. An all-active mask is the identity: tensors pass through untouched.
 */
final class MaskedExperts {
    private final ExpertMask mask;
    private final int local;
    private final int[] compactRank; // job rank -> rank of the compact numbering, -1 when inactive

    MaskedExperts(ExpertMask mask, int numLocalExperts) {
        this.mask = mask;
        this.local = numLocalExperts;
        this.compactRank = new int[mask.jobSize()];
        java.util.Arrays.fill(compactRank, -1);
        int[] active = mask.activeJobRanks();
        for (int i = 0; i < active.length; i++) compactRank[active[i]] = i;
    }

    /**
     * The config of the buffer underneath: the active ranks' experts only.
     *
     * @throws IllegalArgumentException if the mask leaves fewer experts than the top-k
     */
    static MoeConfig compactConfig(MoeConfig config, ExpertMask mask) {
        int experts = config.numLocalExperts(mask.jobSize()) * mask.activeCount();
        if (config.numTopk() > experts)
            throw new IllegalArgumentException("the mask leaves " + experts + " experts on " + mask.activeCount()
                    + " active ranks, fewer than numTopk = " + config.numTopk()
                    + "; lower the top-k or open moe(config) on the shrunken communicator");
        return new MoeConfig(
                config.mode(), experts, config.hidden(), config.maxTokensPerRank(), config.numTopk(), config.useFp8());
    }

    ExpertMask mask() {
        return mask;
    }

    boolean identity() {
        return mask.allActive();
    }

    /** Rank of a job rank in the buffer underneath, or -1 when it is inactive. */
    int compactRank(int jobRank) {
        return compactRank[jobRank];
    }

    /** The compact id of original expert {@code e}, or -1 (also for -1). */
    long compact(long e) {
        if (e < 0) return -1;
        int r = compactRank[(int) (e / local)];
        return r < 0 ? -1 : (long) r * local + e % local;
    }

    /**
     * Where a mask drops entries, device tensors cannot be translated (no device-side translation
     * yet): reject them before any rank runs the operation.
     */
    void requireTranslatable(String what, Tensor t) {
        if (identity() || t == null || t.memory().kind().isHost()) return;
        throw new UnsupportedOperationException(
                what + " is in " + t.memory().kind() + " memory, but " + mask
                        + " drops experts and its id translation runs on host tensors only (no device-side translation yet); "
                        + "pass host tensors, or open moe(config) on the shrunken communicator to spread the experts over the survivors");
    }

    /** {@code topkIdx [T, K]} (validated, original numbering) in the compact numbering: a new host tensor. */
    Tensor translate(Tensor topkIdx) {
        if (identity()) return topkIdx;
        long[] ids = topkIdx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        for (int i = 0; i < ids.length; i++) ids[i] = compact(ids[i]);
        Tensor out = Tensor.allocate(Arena.ofAuto(), DType.INT64, topkIdx.shape());
        MemorySegment.copy(ids, 0, out.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.length);
        return out;
    }

    /** Per token of {@code topkIdx [T, K]} (original numbering), the entries naming an inactive rank's expert. */
    int[] dropped(Tensor topkIdx) {
        int rows = (int) topkIdx.dim(0), k = (int) topkIdx.dim(1);
        int[] dropped = new int[rows];
        if (identity()) return dropped;
        long[] ids = topkIdx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        for (int t = 0; t < rows; t++)
            for (int j = 0; j < k; j++) if (ids[t * k + j] >= 0 && compact(ids[t * k + j]) < 0) dropped[t]++;
        return dropped;
    }

    /**
     * A layout of the compact routing shown in the original numbering: {@code [jobSize]} ranks and
     * {@code [numExperts]} experts, zeros for the inactive ranks (nothing is sent there).
     */
    MoeLayout expand(MoeLayout compact, int numExperts) {
        if (identity()) return compact;
        int job = mask.jobSize(), active = mask.activeCount();
        int tokens = (int) compact.isTokenInRank().dim(0);
        int[] perRank = compact.tokensPerRank().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED);
        int[] perExpert = compact.tokensPerExpert().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED);
        byte[] inRank = compact.isTokenInRank().segment().toArray(ValueLayout.JAVA_BYTE);
        int[] jobPerRank = new int[job], jobPerExpert = new int[numExperts];
        byte[] jobInRank = new byte[tokens * job];
        int[] ranks = mask.activeJobRanks();
        for (int i = 0; i < active; i++) {
            int r = ranks[i];
            jobPerRank[r] = perRank[i];
            System.arraycopy(perExpert, i * local, jobPerExpert, r * local, local);
            for (int t = 0; t < tokens; t++) jobInRank[t * job + r] = inRank[t * active + i];
        }
        Arena auto = Arena.ofAuto();
        Tensor pr = Tensor.allocate(auto, DType.INT32, job), pe = Tensor.allocate(auto, DType.INT32, numExperts);
        Tensor ir = Tensor.allocate(auto, DType.BOOL, tokens, job);
        MemorySegment.copy(jobPerRank, 0, pr.segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, job);
        MemorySegment.copy(jobPerExpert, 0, pe.segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, numExperts);
        MemorySegment.copy(jobInRank, 0, ir.segment(), ValueLayout.JAVA_BYTE, 0, jobInRank.length);
        return new MoeLayout(pr, pe, ir);
    }

    /**
     * A layout's {@code tokensPerRank} (original numbering, host) gathered for the active ranks,
     * after checking that it sends nothing to an inactive one (else it was not made by this buffer).
     */
    int[] activeTokensPerRank(String what, int[] jobTokensPerRank) {
        int[] ranks = mask.activeJobRanks(), out = new int[ranks.length];
        for (int r = 0; r < jobTokensPerRank.length; r++) {
            if (compactRank[r] < 0 && jobTokensPerRank[r] != 0)
                throw new IllegalArgumentException(
                        what + " was not computed by this masked buffer: it sends " + jobTokensPerRank[r]
                                + " tokens to inactive job rank " + r + " (" + mask + "); use this buffer's layout()");
        }
        for (int i = 0; i < ranks.length; i++) out[i] = jobTokensPerRank[ranks[i]];
        return out;
    }
}
