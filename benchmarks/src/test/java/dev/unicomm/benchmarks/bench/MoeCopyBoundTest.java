package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.DType;
import dev.unicomm.api.Tensor;
import dev.unicomm.backend.shm.ShmBackendProvider;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The host bounds of {@code bench moe} do the work they claim: every byte read, every row pushed where a dispatch puts it. */
class MoeCopyBoundTest {
    private static final int RANKS = 3, TOKENS = 6, HIDDEN = 8; // rows of 16 bytes

    /** Rank s's token t goes to the ranks in this mask (every pattern of 3 ranks, the empty one included). */
    private static int mask(int s, int t) {
        return (s * 5 + t * 3) % 8;
    }

    private static byte cell(int s, int t, int i) {
        return (byte) (s * 64 + t * 8 + i);
    }

    @Test
    void pushLandsEveryRowWhereADispatchPutsIt() {
        for (long rowBytes :
                new long[] {2L * HIDDEN, 10}) { // a BF16 row, and the first bytes of one (an FP8 row with its scales)
            ThreadJob.of(new ShmBackendProvider(), RANKS).values(comm -> {
                int me = comm.rank();
                int[][] rows = new int[RANKS][RANKS]; // rows[s][r]: tokens of s that go to r
                for (int s = 0; s < RANKS; s++)
                    for (int t = 0; t < TOKENS; t++) for (int r = 0; r < RANKS; r++) rows[s][r] += mask(s, t) >>> r & 1;
                long[] first = new long[RANKS];
                long most = 0;
                for (int r = 0; r < RANKS; r++) {
                    long in = 0;
                    for (int s = 0; s < RANKS; s++) {
                        if (s < me) first[r] += rows[s][r];
                        in += rows[s][r];
                    }
                    most = Math.max(most, in);
                }
                java.util.BitSet[] dests = new java.util.BitSet[TOKENS];
                try (Arena arena = Arena.ofConfined()) {
                    Tensor x = Tensor.allocate(arena, DType.BF16, TOKENS, HIDDEN);
                    for (int t = 0; t < TOKENS; t++) {
                        dests[t] = java.util.BitSet.valueOf(new long[] {mask(me, t)});
                        for (int i = 0; i < 2 * HIDDEN; i++)
                            x.segment().set(ValueLayout.JAVA_BYTE, t * 2L * HIDDEN + i, cell(me, t, i));
                    }
                    try (MoeCopyBound bound = new MoeCopyBound(comm, arena, x, false, 1, 0, most * 2 * HIDDEN)) {
                        assertTrue(bound.timeDispatch(new long[RANKS], dests, first, rowBytes) > 0);
                        comm.barrier();
                        MemorySegment got = bound.pushed();
                        long at = 0; // on every rank: the rows of rank 0's tokens, then rank 1's, ..., each in token
                        // order
                        for (int s = 0; s < RANKS; s++) {
                            for (int t = 0; t < TOKENS; t++) {
                                if ((mask(s, t) >>> me & 1) == 0) continue;
                                for (int i = 0; i < rowBytes; i++) { // x read as rows of rowBytes
                                    long o = t * rowBytes + i;
                                    assertEquals(
                                            cell(s, (int) (o / (2 * HIDDEN)), (int) (o % (2 * HIDDEN))),
                                            got.get(ValueLayout.JAVA_BYTE, at * rowBytes + i),
                                            "rank " + me + ": row " + at + " (rank " + s + "'s token " + t + "), byte "
                                                    + i);
                                }
                                at++;
                            }
                        }
                        comm.barrier(); // no rank closes the destination while a peer still reads its own
                    }
                }
                return null;
            });
        }
    }

    @Test
    void readStreamsReadsEveryByteOfEveryStream() {
        assertTrue(
                ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(),
                "tests run with --add-modules jdk.incubator.vector");
        SplittableRandom rnd = new SplittableRandom(7);
        MemorySegment[] segs = new MemorySegment[4];
        for (int k = 0; k < segs.length; k++) {
            segs[k] = Arena.ofAuto().allocate(20_000);
            for (long i = 0; i < segs[k].byteSize(); i += 8)
                segs[k].set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
        }
        for (int n = 1; n <= 4; n++) {
            for (long len : new long[] {0, 8, 256, 264, 4096 + 24, 12_000}) {
                long[] from = new long[n];
                long expect = 0;
                for (int k = 0; k < n; k++) {
                    from[k] = 8L * k * (k + 1); // a different start per stream
                    for (long i = 0; i < len; i += 8)
                        expect ^= segs[k].get(ValueLayout.JAVA_LONG_UNALIGNED, from[k] + i);
                }
                assertEquals(
                        expect,
                        VectorRead.readStreams(segs, from, n, len),
                        "vector, " + n + " streams of " + len + " bytes");
                assertEquals(
                        expect,
                        MoeCopyBound.readStreamsScalar(segs, from, n, len),
                        "scalar, " + n + " streams of " + len + " bytes");
                // A stream whose word changes changes the fold: no stream or word is skipped.
                if (len > 0) {
                    MemorySegment last = segs[n - 1];
                    long at = from[n - 1] + len - 8, old = last.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                    last.set(ValueLayout.JAVA_LONG_UNALIGNED, at, old ^ 1);
                    assertEquals(expect ^ 1, VectorRead.readStreams(segs, from, n, len));
                    assertEquals(expect ^ 1, MoeCopyBound.readStreamsScalar(segs, from, n, len));
                    last.set(ValueLayout.JAVA_LONG_UNALIGNED, at, old);
                }
            }
        }
    }
}
