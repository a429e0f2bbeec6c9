package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * One rank of {@code unicomm bench soak}. Rounds of one operation each, the same on every rank:
 * put, get, atomics, allreduce, MoE dispatch/combine, in turn. Data is generated from
 * (seed, round, source rank), so every rank knows what it must receive; puts and gets are compared
 * by CRC32C of the received block against the generated one, atomics and allreduce value by value,
 * MoE against the kit's reference. A mismatch is counted and printed, never fatal. Rank 0 decides
 * when to stop (time or operation budget) and broadcasts it at the start of each round.
 * Prints {@code SOAK,rank,ops,bytes,mismatches,millis} at the end.
 *
 * <p>Arguments: {@code durationMillis maxOps seed maxBlockBytes corruptEvery}; {@code corruptEvery > 0}
 * makes rank 0 flip a received byte in every that-many-th put round, to show that the checks catch it.
 */
public final class SoakWorker {
    private SoakWorker() {}

    static final int KINDS = 5;
    static final String[] KIND_NAMES = {"put", "get", "atomics", "allreduce", "moe"};

    public static void main(String[] args) {
        long durationMs = Long.parseLong(args[0]);
        long maxOps = Long.parseLong(args[1]);
        long seed = Long.parseLong(args[2]);
        int maxBlock = Integer.parseInt(args[3]);
        int corruptEvery = Integer.parseInt(args[4]);
        try (Communicator c = Unicomm.connect()) {
            new SoakWorker.Run(c, seed, maxBlock, corruptEvery).run(durationMs, maxOps);
        }
    }

    static final class Run {
        final Communicator c;
        final int me, n;
        final long seed;
        final int maxBlock;
        final int corruptEvery;
        final Arena arena = Arena.ofConfined();
        final SymmetricBuffer blocks, counters, flag, red, redOut;
        final MemorySegment local, expected;
        final MoeBuffer moe;
        final MoeConfig moeConfig;
        long ops, bytes, mismatches, atomicsDone;

        Run(Communicator c, long seed, int maxBlock, int corruptEvery) {
            this.corruptEvery = corruptEvery;
            this.c = c;
            this.me = c.rank();
            this.n = c.size();
            this.seed = seed;
            this.maxBlock = maxBlock;
            blocks = c.heap().allocate((long) maxBlock * n, 4096);
            counters = c.heap().allocate(64L * n);
            flag = c.heap().allocate(64);
            red = c.heap().allocate(maxBlock, 4096);
            redOut = c.heap().allocate(maxBlock, 4096);
            local = arena.allocate(maxBlock, 4096);
            expected = arena.allocate(maxBlock, 4096);
            moeConfig = new MoeConfig(MoeConfig.Mode.NORMAL, 2 * n, 128, 16, 2, false);
            moe = c.moe(moeConfig);
        }

        void run(long durationMs, long maxOps) {
            long t0 = System.nanoTime();
            for (long round = 0; ; round++) {
                // Rank 0 decides, everyone follows: the ranks never disagree on the number of rounds.
                if (me == 0) {
                    boolean more = (System.nanoTime() - t0) / 1_000_000 < durationMs && ops < maxOps;
                    flag.segment().set(ValueLayout.JAVA_LONG, 0, more ? 1 : 0);
                }
                c.collectives().broadcast(c.world(), flag, flag, 1, DType.INT64, 0);
                if (flag.segment().get(ValueLayout.JAVA_LONG, 0) == 0) break;
                int size = blockSize(round);
                switch ((int) (round % KINDS)) {
                    case 0 -> put(round, size);
                    case 1 -> get(round, size);
                    case 2 -> atomics(round);
                    case 3 -> allreduce(round, size);
                    default -> moe(round);
                }
                ops++;
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            moe.close();
            for (SymmetricBuffer b : new SymmetricBuffer[] {blocks, counters, flag, red, redOut}) b.close();
            arena.close();
            System.out.println("SOAK," + me + "," + ops + "," + bytes + "," + mismatches + "," + ms);
        }

        int blockSize(long round) {
            SplittableRandom r = new SplittableRandom(seed ^ (round * 0x9E3779B97F4A7C15L));
            return 8 * (1 + r.nextInt(maxBlock / 8));
        }

        /** The block that {@code src} sends in {@code round}: reproducible anywhere. */
        void fill(MemorySegment dst, long round, int src, int size) {
            SplittableRandom r = new SplittableRandom(seed * 1_000_003L + round * 7919L + src);
            for (long i = 0; i < size; i += 8) dst.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }

        static long crc(MemorySegment s, long offset, int size) {
            CRC32C crc = new CRC32C();
            crc.update(s.asSlice(offset, size).asByteBuffer());
            return crc.getValue();
        }

        void mismatch(long round, String what) {
            mismatches++;
            if (mismatches <= 10) System.out.println("MISMATCH rank " + me + " round " + round + ": " + what);
        }

        /** Everyone puts its block into slot {@code me} of one peer; each checks the slot it was sent. */
        void put(long round, int size) {
            int shift = 1 + (int) (round / KINDS % Math.max(1, n - 1));
            int to = (me + shift) % n, from = (me - shift % n + n) % n;
            fill(local, round, me, size);
            c.rma().put(blocks, (long) me * maxBlock, Memory.of(local), 0, size, to);
            c.rma().quiet();
            c.barrier();
            fill(expected, round, from, size);
            if (corruptEvery > 0 && me == 0 && round / KINDS % corruptEvery == 0) {
                long at = (long) from * maxBlock + size / 2;
                blocks.segment()
                        .set(ValueLayout.JAVA_BYTE, at, (byte) ~blocks.segment().get(ValueLayout.JAVA_BYTE, at));
            }
            if (crc(blocks.segment(), (long) from * maxBlock, size) != crc(expected, 0, size))
                mismatch(round, "put of " + size + " bytes from rank " + from + ": checksum differs");
            bytes += size;
            c.barrier(); // nobody overwrites a slot before its owner has checked it
        }

        /** Everyone publishes its block locally; each gets one peer's and checks it. */
        void get(long round, int size) {
            int shift = 1 + (int) (round / KINDS % Math.max(1, n - 1));
            int from = (me + shift) % n;
            fill(blocks.segment().asSlice(0, size), round, me, size);
            c.barrier();
            c.rma().get(Memory.of(local), 0, blocks, 0, size, from);
            fill(expected, round, from, size);
            if (crc(local, 0, size) != crc(expected, 0, size))
                mismatch(round, "get of " + size + " bytes from rank " + from + ": checksum differs");
            bytes += size;
            c.barrier();
        }

        /** Every rank adds {@code me + 1} to a counter on every rank 8 times, and CASes one word; totals are known. */
        void atomics(long round) {
            for (int k = 0; k < 8; k++) for (int pe = 0; pe < n; pe++) c.rma().atomicAdd(counters, 0, me + 1, pe);
            long prev = c.rma().atomicFetchAdd(counters, 8, 1, (me + 1) % n);
            if (prev < 0) mismatch(round, "fetch-add returned " + prev);
            c.rma().quiet();
            c.barrier();
            atomicsDone++;
            long expectSum = atomicsDone * 8L * n * (n + 1) / 2;
            long got = c.rma().atomicFetch(counters, 0, me);
            if (got != expectSum) mismatch(round, "atomic sum " + got + ", expected " + expectSum);
            long got1 = c.rma().atomicFetch(counters, 8, me);
            if (got1 != atomicsDone) mismatch(round, "fetch-add counter " + got1 + ", expected " + atomicsDone);
            long before = c.rma().atomicCompareSwap(counters, 16, atomicsDone - 1, atomicsDone, me);
            if (before != atomicsDone - 1)
                mismatch(round, "compare-swap saw " + before + ", expected " + (atomicsDone - 1));
            bytes += 8L * (8 * n + 5);
            c.barrier();
        }

        /** INT64 sum of every rank's generated block: exact, so compared value by value. */
        void allreduce(long round, int size) {
            fill(red.segment().asSlice(0, size), round, me, size);
            c.collectives().allreduce(c.world(), redOut, red, size / 8, DType.INT64, ReduceOp.SUM);
            long[] sum = new long[size / 8];
            for (int r = 0; r < n; r++) {
                fill(expected, round, r, size);
                for (int i = 0; i < sum.length; i++) sum[i] += expected.getAtIndex(ValueLayout.JAVA_LONG, i);
            }
            for (int i = 0; i < sum.length; i++) {
                long got = redOut.segment().getAtIndex(ValueLayout.JAVA_LONG, i);
                if (got != sum[i]) {
                    mismatch(
                            round,
                            "allreduce element " + i + " of " + sum.length + " is " + got + ", expected " + sum[i]);
                    break;
                }
            }
            bytes += size;
        }

        /** Normal dispatch + combine of a fresh random routing, checked against the kit's reference. */
        void moe(long round) {
            MoeScenario s = new MoeScenario(
                    "soak-" + round,
                    moeConfig,
                    n,
                    seed + round,
                    MoeScenario.Routing.values()[(int) (round / KINDS % MoeScenario.Routing.values().length)],
                    MoeScenario.unevenTokens(n, moeConfig.maxTokensPerRank(), round % 2 == 0));
            try {
                new MoeConformance(c, s).checkNormal(moe, false);
            } catch (AssertionError e) {
                mismatch(round, "MoE: " + e.getMessage());
            }
            bytes += 2L * s.tokens()[me] * moeConfig.hidden() * 2; // activations in (dispatch) and out (combine)
        }
    }
}
