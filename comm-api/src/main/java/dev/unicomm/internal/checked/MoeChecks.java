package dev.unicomm.internal.checked;

import dev.unicomm.api.DType;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Tensor;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** Shape, dtype and value checks of MoE arguments; messages name the argument and what is allowed. */
final class MoeChecks {
    private MoeChecks() {}

    /** {@code t} must be non-null with {@code dtype} and exactly {@code dims} (a -1 dim matches any size). */
    static Tensor tensor(String what, Tensor t, DType dtype, long... dims) {
        if (t == null) throw new IllegalArgumentException(what + " must not be null: expected " + dtype + shape(dims));
        if (t.dtype() != dtype) throw new IllegalArgumentException(what + " must be " + dtype + ", got " + t.dtype());
        boolean ok = t.rank() == dims.length;
        for (int i = 0; ok && i < dims.length; i++) ok = dims[i] < 0 || t.dim(i) == dims[i];
        if (!ok)
            throw new IllegalArgumentException(
                    what + " must have shape " + shape(dims) + ", got " + Arrays.toString(t.shape()));
        return t;
    }

    private static String shape(long[] dims) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < dims.length; i++)
            b.append(i > 0 ? ", " : "").append(dims[i] < 0 ? "*" : Long.toString(dims[i]));
        return b.append(']').toString();
    }

    /** Rows of a 2-D tensor, checked against the most the buffer was sized for. */
    static int rows(String what, Tensor t, int max, String maxName) {
        if (t.rank() < 1) throw new IllegalArgumentException(what + " must have at least one dimension");
        if (t.dim(0) > max)
            throw new IllegalArgumentException(what + " has " + t.dim(0)
                    + " tokens but the buffer was sized for at most " + max + " (" + maxName + ")");
        return (int) t.dim(0);
    }

    /**
     * Values of {@code topkIdx [T, K]} (host memory only; device tensors are checked by their backend):
     * each in {@code [-1, numExperts)}, no expert twice in a row.
     */
    static void topkValues(String what, Tensor topkIdx, int numExperts) {
        if (topkIdx.memory().kind() != MemoryKind.HOST) return;
        long[] s = ids(topkIdx);
        int rows = (int) topkIdx.dim(0), k = (int) topkIdx.dim(1);
        long[] seen = new long
                [(numExperts + 63) >>> 6]; // this row's experts as bits: one test per id, not one per earlier slot
        for (int t = 0; t < rows; t++) {
            int row = t * k;
            for (int j = 0; j < k; j++) {
                long e = s[row + j];
                if (e < -1 || e >= numExperts)
                    throw new IllegalArgumentException(what + "[" + t + ", " + j + "] = " + e
                            + " is not an expert: allowed are -1 (unused slot) and 0.." + (numExperts - 1));
                if (e < 0) continue;
                int word = (int) (e >>> 6);
                long bit = 1L << e; // the shift takes e's low 6 bits
                if ((seen[word] & bit) != 0) {
                    int i = 0;
                    while (s[row + i] != e) i++;
                    throw new IllegalArgumentException(what + "[" + t + "] names expert " + e + " twice (slots " + i
                            + " and " + j + "); each row must select distinct experts");
                }
                seen[word] |= bit;
            }
            for (int j = 0; j < k; j++) if (s[row + j] >= 0) seen[(int) (s[row + j] >>> 6)] = 0;
        }
    }

    /** The ids as a Java array: one bulk copy, then plain array loops (fast even before the JIT compiles them). */
    private static long[] ids(Tensor topkIdx) {
        return topkIdx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    /** The layout must be the one of {@code topkIdx}: recomputes tokens per rank on host tensors. */
    static void layoutMatches(String what, int[] tokensPerRank, Tensor topkIdx, int numRanks, int numLocalExperts) {
        if (topkIdx.memory().kind() != MemoryKind.HOST) return;
        long[] s = ids(topkIdx);
        int rows = (int) topkIdx.dim(0), k = (int) topkIdx.dim(1);
        int experts = numRanks * numLocalExperts;
        int[] rankOf = new int[experts]; // a table: a 64-bit division per id cost most of this check
        for (int e = 0; e < experts; e++) rankOf[e] = e / numLocalExperts;
        int[] expected = new int[numRanks];
        int[] lastRow = new int[numRanks]; // row + 1 that last counted each rank
        for (int t = 0; t < rows; t++) {
            for (int j = 0; j < k; j++) {
                long e = s[t * k + j];
                if (e < 0) continue;
                if (e >= experts)
                    throw new IllegalArgumentException(what + ": topkIdx[" + t + ", " + j + "] = " + e
                            + " is beyond the " + experts + " experts of the job");
                int r = rankOf[(int) e];
                if (lastRow[r] != t + 1) {
                    lastRow[r] = t + 1;
                    expected[r]++;
                }
            }
        }
        if (!Arrays.equals(expected, tokensPerRank))
            throw new IllegalArgumentException(what + " was not computed from this topkIdx: tokensPerRank "
                    + Arrays.toString(tokensPerRank) + ", topkIdx gives " + Arrays.toString(expected));
    }
}
