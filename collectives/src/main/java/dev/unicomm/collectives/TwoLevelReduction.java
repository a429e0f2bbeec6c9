package dev.unicomm.collectives;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;

/**
 * Allreduce and reduce-scatter of the world in two levels, with the flat algorithm's bits. The flat
 * reduction is a left fold over ranks 0..n-1, and floating-point sums do not reassociate, so the hosts
 * cannot reduce in parallel and add their partials. Instead the fold runs as a chain over the hosts
 * (ranks are host-major: host k holds ranks [kL, (k+1)L)): local rank l of host k owns a share of the
 * elements, receives the node peers' inputs for it (inside the host), continues the running fold that
 * local rank l of host k-1 sent it, and passes it on to host k+1 (across hosts). BF16/FP16 partials
 * travel as FP32, since the flat fold rounds only once. The last host has the results and sends them back.
 * The share is cut into slot-sized pieces that follow each other down the chain (a pipeline).
 *
 * <p>Bytes across hosts, all ranks together (S = the vector's bytes, H hosts, L ranks per host,
 * f = partial bytes / element bytes, 2 for BF16/FP16 and 1 otherwise):
 * <pre>
 *   allreduce       flat 2 S L (H-1)    two levels S (H-1) (f + 1)       (partials down the chain, results back)
 *   reduce-scatter  flat S L (H-1)      two levels S (H-1) (f + 1/H)
 * </pre>
 * Used only where two levels move fewer ({@link #fewerBytes}).
 *
 * <p>Flow control: slot messages alternate between two slots per sender, so a chain link sends piece t
 * only after its successor acknowledged piece t-2 (an empty flag per piece).
 */
final class TwoLevelReduction {
    private final Exchange ex;
    private final Reducer reducer;
    private final int hosts;
    private final int local;
    private final int k;
    private final int l;

    TwoLevelReduction(Exchange ex, Reducer reducer, TwoLevelGroups g) {
        this.ex = ex;
        this.reducer = reducer;
        this.hosts = g.hosts();
        this.local = g.local();
        this.k = g.me / local;
        this.l = g.me % local;
    }

    /** Whether the chain moves fewer bytes across hosts than the flat algorithm (see the class comment). */
    static boolean fewerBytes(boolean allreduce, DType dtype, int hosts, int local) {
        int f = Reducer.partialBytes(dtype) / dtype.byteSize();
        return allreduce ? f + 1 < 2 * local : hosts * f + 1 < hosts * local;
    }

    /** One piece of a share: elements [start, start+len) of the vector, in the block of owner (reduce-scatter) or -1. */
    private record Piece(long start, long len, int owner) {}

    private int rank(int host, int localRank) {
        return host * local + localRank;
    }

    /** Allreduce of {@code count} elements: local rank l's share is chunk l of the vector cut into L. */
    void allreduce(DType dt, ReduceOp op, SymmetricBuffer src, SymmetricBuffer dst, long count) {
        int es = dt.byteSize();
        long[] chunk = Chunks.split(count, local, es);
        Piece[][] pieces = new Piece[local][];
        for (int q = 0; q < local; q++) pieces[q] = cut(new long[] {chunk[q], chunk[q + 1]}, -1, pieceElements(dt));
        chain(dt, op, src, dst, pad(pieces), null);
        // Inside the host: my chunk to the others.
        long a = chunk[l] * es, len = (chunk[l + 1] - chunk[l]) * es;
        ex.beginRound();
        for (int i = 1; i < local; i++) ex.sendInto(rank(k, (l + i) % local), dst, a, dst, a, len);
        for (int i = 1; i < local; i++) ex.await(rank(k, (l - i + local) % local));
    }

    /**
     * Reduce-scatter of blocks of {@code perPe} elements: local rank l's share is the blocks of ranks
     * l, L+l, 2L+l, ... (its column); {@code dstOff[r]} is where rank r keeps its block.
     */
    void reduceScatter(DType dt, ReduceOp op, SymmetricBuffer src, SymmetricBuffer dst, long perPe, long[] dstOff) {
        Piece[][] pieces = new Piece[local][];
        for (int q = 0; q < local; q++) {
            long[] ranges = new long[2 * hosts];
            for (int h = 0; h < hosts; h++) {
                ranges[2 * h] = rank(h, q) * perPe;
                ranges[2 * h + 1] = ranges[2 * h] + perPe;
            }
            pieces[q] = cut(ranges, q, pieceElements(dt));
        }
        chain(dt, op, src, dst, pad(pieces), new long[][] {dstOff, {perPe}});
    }

    /** Elements per piece: a partial fits one slot. */
    private long pieceElements(DType dt) {
        return Math.max(1, ex.capacity() / Reducer.partialBytes(dt));
    }

    /** Cuts element ranges [r0, r1), [r2, r3), ... into pieces; {@code localRank >= 0} marks range h as rank(h, localRank)'s block. */
    private Piece[] cut(long[] ranges, int localRank, long piece) {
        java.util.List<Piece> out = new java.util.ArrayList<>();
        for (int i = 0; i < ranges.length; i += 2) {
            for (long first = ranges[i]; first < ranges[i + 1]; first += piece)
                out.add(new Piece(
                        first, Math.min(piece, ranges[i + 1] - first), localRank < 0 ? -1 : rank(i / 2, localRank)));
        }
        return out.toArray(Piece[]::new);
    }

    /** Every share gets the same number of steps (empty pieces at the end), so the node's rounds stay all-to-all. */
    private static Piece[][] pad(Piece[][] pieces) {
        int steps = 0;
        for (Piece[] p : pieces) steps = Math.max(steps, p.length);
        Piece[][] out = new Piece[pieces.length][steps];
        for (int q = 0; q < pieces.length; q++) {
            for (int t = 0; t < steps; t++) out[q][t] = t < pieces[q].length ? pieces[q][t] : new Piece(0, 0, -1);
        }
        return out;
    }

    /**
     * The chain. {@code scatter} null: allreduce (results back to every host's rank l, into the same place
     * of dst); else {@code scatter[0][r]} is rank r's block offset in dst and {@code scatter[1][0]} the block
     * length, and each result piece goes to its block's owner only.
     */
    private void chain(
            DType dt, ReduceOp op, SymmetricBuffer src, SymmetricBuffer dst, Piece[][] pieces, long[][] scatter) {
        int es = dt.byteSize(), pb = Reducer.partialBytes(dt);
        int steps = pieces[l].length, prev = k > 0 ? rank(k - 1, l) : -1, next = k < hosts - 1 ? rank(k + 1, l) : -1;
        int last = rank(hosts - 1, l);
        MemorySegment[] srcs = new MemorySegment[local];
        Acks acks = new Acks(pieces[l], scatter, next, last);
        for (int t = 0; t < steps; t++) {
            Piece p = pieces[l][t];
            ex.beginRound();
            for (int i = 1; i < local; i++) {
                int q = (l + i) % local;
                ex.sendSlot(rank(k, q), src, pieces[q][t].start * es, pieces[q][t].len * es);
            }
            for (int i = 1; i < local; i++) {
                int q = (l - i + local) % local;
                srcs[q] = ex.awaitSlot(rank(k, q)).asSlice(Exchange.HEADER, p.len * es);
            }
            srcs[l] = src.segment().asSlice(p.start * es, p.len * es);
            MemorySegment acc = prev < 0 ? null : ex.awaitSlot(prev).asSlice(Exchange.HEADER, p.len * pb);
            if (next >= 0) {
                acks.consume(t - 2);
                reducer.reduceLink(dt, op, acc, srcs, ex.stagingPayload(p.len * pb), p.len, true);
                ex.sendStaged(next, p.len * pb);
            } else if (scatter == null) {
                reducer.reduceLink(dt, op, acc, srcs, dst.segment().asSlice(p.start * es, p.len * es), p.len, false);
                for (int h = 0; h < hosts - 1; h++)
                    ex.sendInto(rank(h, l), dst, p.start * es, dst, p.start * es, p.len * es);
            } else if (p.len > 0) {
                long at = scatter[0][p.owner] + (p.start - p.owner * scatter[1][0]) * es;
                if (p.owner == rank(k, l)) {
                    reducer.reduceLink(dt, op, acc, srcs, dst.segment().asSlice(at, p.len * es), p.len, false);
                } else {
                    reducer.reduceLink(dt, op, acc, srcs, ex.stagingPayload(p.len * es), p.len, false);
                    ex.sendStagedInto(p.owner, dst, at, p.len * es);
                }
            }
            if (prev >= 0) {
                ex.beginRound(); // the ack after this step's result, which may go to the same rank
                ex.sendFlag(prev);
            }
        }
        if (next >= 0) acks.consume(steps - 1);
        if (next >= 0 && next != last) for (int t = 0; t < steps; t++) if (acks.resultFor(t)) ex.await(last);
    }

    /**
     * What a link receives from the links after it: an ack per piece from its successor and, from the last
     * host, each result piece it owns (before that piece's ack where the successor is the last host).
     */
    private final class Acks {
        private final Piece[] mine;
        private final long[][] scatter;
        private final int next;
        private final int last;
        private int consumed = -1;

        Acks(Piece[] mine, long[][] scatter, int next, int last) {
            this.mine = mine;
            this.scatter = scatter;
            this.next = next;
            this.last = last;
        }

        /** Whether the last host sends this rank a result for step t. */
        boolean resultFor(int t) {
            if (scatter == null) return true;
            return mine[t].len > 0 && mine[t].owner == rank(k, l);
        }

        /** Consumes the acks up to step t (and, from the last host, the results before them). */
        void consume(int t) {
            while (consumed < t) {
                consumed++;
                if (next == last && resultFor(consumed)) ex.await(last);
                ex.await(next);
            }
        }
    }
}
