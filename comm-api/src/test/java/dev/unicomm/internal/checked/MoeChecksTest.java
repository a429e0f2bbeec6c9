package dev.unicomm.internal.checked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.unicomm.api.DType;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The top-k id checks on rows that span several 64-expert words and repeat rows' experts. */
class MoeChecksTest {
    private static final Arena ARENA = Arena.ofAuto();

    private static Tensor ids(int k, long... v) {
        Tensor t = Tensor.allocate(ARENA, DType.INT64, v.length / k, k);
        for (int i = 0; i < v.length; i++) t.segment().setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, v[i]);
        return t;
    }

    private static String error(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void distinctRowsPassEvenWhenRowsShareExperts() {
        // Every row reuses the previous row's experts (the per-row state must be cleared), across words.
        MoeChecks.topkValues("topkIdx", ids(4, 0, 64, 200, -1, 0, 64, 200, 255, 255, 63, 64, 1), 256);
    }

    @Test
    void aRepeatedExpertNamesBothSlots() {
        assertEquals(
                "topkIdx[1] names expert 130 twice (slots 0 and 3); each row must select distinct experts",
                error(() -> MoeChecks.topkValues("topkIdx", ids(4, 1, 2, 3, 4, 130, 66, 2, 130), 256)));
        // 2 and 66 share their low 6 bits but not their word: distinct.
        MoeChecks.topkValues("topkIdx", ids(2, 2, 66), 256);
    }

    @Test
    void outOfRangeComesFirstInRowOrder() {
        assertEquals(
                "topkIdx[0, 1] = 256 is not an expert: allowed are -1 (unused slot) and 0..255",
                error(() -> MoeChecks.topkValues("topkIdx", ids(3, 5, 256, 5), 256)));
        assertEquals(
                "topkIdx[0, 0] = -2 is not an expert: allowed are -1 (unused slot) and 0..255",
                error(() -> MoeChecks.topkValues("topkIdx", ids(2, -2, 3), 256)));
    }

    @Test
    void layoutCountsEachTokenOncePerRank() {
        // 4 ranks of 64 experts: row 0 hits ranks 0 and 3 (twice), row 1 rank 1, row 2 nothing.
        Tensor t = ids(3, 1, 200, 255, 70, -1, -1, -1, -1, -1);
        MoeChecks.layoutMatches("layout", new int[] {1, 1, 0, 1}, t, 4, 64);
        assertEquals(
                "layout was not computed from this topkIdx: tokensPerRank [1, 1, 0, 2], topkIdx gives [1, 1, 0, 1]",
                error(() -> MoeChecks.layoutMatches("layout", new int[] {1, 1, 0, 2}, t, 4, 64)));
    }
}
