package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One rank of {@link UcxTwoHostsTest}: RMA, atomics, signals, a team and a busy target across hosts.
 * Rank {@code r}'s partner {@code (r + n/2) % n} is on the other host. Prints {@code PASS rank=...} and
 * exits 0, or prints what failed and exits 1.
 */
public final class HostsRank {
    private HostsRank() {}

    public static void main(String[] args) throws Exception {
        try (Communicator comm = Unicomm.connect()) {
            int me = comm.rank(), n = comm.size(), partner = (me + n / 2) % n;
            String host = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname"))
                    .strip(); // the UTS namespace's name
            ringPutThenGet(comm, partner);
            atomicsFromEveryRank(comm);
            putSignalPingPong(comm, partner);
            teamAcrossHosts(comm);
            long busyGets = getFromABusyTarget(comm);
            comm.barrier();
            System.out.println(
                    "PASS rank=" + me + " host=" + host + " partner=" + partner + " busyTargetGets=" + busyGets);
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static byte pattern(int rank, long i) {
        return (byte) (rank * 31 + i * 7 + 1);
    }

    /** Each rank puts its pattern into the next rank's buffer, then reads back what its partner holds. */
    static void ringPutThenGet(Communicator comm, int partner) {
        int me = comm.rank(), n = comm.size();
        for (int size : new int[] {1, 8, 4097, 1 << 20}) {
            try (SymmetricBuffer buf = comm.heap().allocate(size);
                    Arena a = Arena.ofConfined()) {
                MemorySegment src = a.allocate(size);
                for (int i = 0; i < size; i++) src.set(ValueLayout.JAVA_BYTE, i, pattern(me, i));
                comm.rma().put(buf, 0, src, (me + 1) % n);
                comm.barrier();
                int writer = (me + n - 1) % n;
                for (int i = 0; i < size; i++)
                    check(
                            buf.segment().get(ValueLayout.JAVA_BYTE, i) == pattern(writer, i),
                            "put of " + size + " B from rank " + writer + " byte " + i);
                MemorySegment got = a.allocate(size);
                comm.rma().get(got, buf, 0, partner);
                int partnersWriter = (partner + n - 1) % n;
                for (int i = 0; i < size; i++)
                    check(
                            got.get(ValueLayout.JAVA_BYTE, i) == pattern(partnersWriter, i),
                            "get of " + size + " B from rank " + partner + " byte " + i);
                comm.barrier();
            }
        }
    }

    /** Fetch-adds and compare-swap increments from every rank on words of one rank lose nothing. */
    static void atomicsFromEveryRank(Communicator comm) {
        int n = comm.size(), adds = 300, cases = 100;
        try (SymmetricBuffer w = comm.heap().allocate(16)) {
            for (int i = 0; i < adds; i++) comm.rma().atomicFetchAdd(w, 0, 1, n - 1);
            for (int i = 0; i < cases; i++) {
                long seen = comm.rma().atomicFetch(w, 8, 0);
                for (int tries = 0; comm.rma().atomicCompareSwap(w, 8, seen, seen + 1, 0) != seen; tries++) {
                    check(tries < 100_000, "compare-swap made no progress");
                    seen = comm.rma().atomicFetch(w, 8, 0);
                }
            }
            comm.barrier();
            check(comm.rma().atomicFetch(w, 0, n - 1) == (long) adds * n, "fetch-add total on rank " + (n - 1));
            check(comm.rma().atomicFetch(w, 8, 0) == (long) cases * n, "compare-swap total on rank 0");
            comm.barrier();
        }
    }

    /** The lower rank of each cross-host pair sends 4 KiB + signal rounds; the other checks the data and acknowledges. */
    static void putSignalPingPong(Communicator comm, int partner) {
        int me = comm.rank(), rounds = 200, len = 4096;
        try (SymmetricBuffer data = comm.heap().allocate(len);
                SymmetricBuffer sig = comm.heap().allocate(8)) {
            byte[] src = new byte[len];
            for (int r = 1; r <= rounds; r++) {
                if (me < partner) {
                    Arrays.fill(src, (byte) r);
                    comm.rma()
                            .putSignal(
                                    data,
                                    0,
                                    Memory.of(MemorySegment.ofArray(src)),
                                    0,
                                    len,
                                    sig,
                                    0,
                                    1,
                                    SignalOp.ADD,
                                    partner);
                    comm.rma().signalWaitUntil(sig, 0, Cmp.EQ, -r);
                } else {
                    comm.rma().signalWaitUntil(sig, 0, Cmp.GE, 1);
                    for (int i = 0; i < len; i++)
                        check(data.segment().get(ValueLayout.JAVA_BYTE, i) == (byte) r, "round " + r + " byte " + i);
                    comm.rma().atomicSet(sig, 0, 0, me);
                    comm.rma().atomicSet(sig, 0, -r, partner);
                }
            }
            comm.barrier();
        }
    }

    /** A strided team of ranks 0, n/2 (one per host): a team barrier completes a put between them. */
    static void teamAcrossHosts(Communicator comm) {
        int me = comm.rank(), n = comm.size();
        try (SymmetricBuffer w = comm.heap().allocate(8);
                Team t = comm.world().split(0, n / 2, 2)) {
            if (t.rank() >= 0) {
                int other = t.worldRank(1 - t.rank());
                comm.rma().put(w, 0, MemorySegment.ofArray(new long[] {1000 + me}), other);
                t.barrier();
                check(
                        w.segment().get(ValueLayout.JAVA_LONG, 0) == 1000 + other,
                        "team barrier did not complete the put from " + other);
            }
            comm.barrier();
        }
    }

    /** Rank 0 gets 8 bytes from its partner while the partner computes without calling unicomm: the partner's progress thread serves it. */
    static long getFromABusyTarget(Communicator comm) {
        int me = comm.rank(), n = comm.size(), target = n / 2;
        long count = 0;
        try (SymmetricBuffer w = comm.heap().allocate(8);
                Arena a = Arena.ofConfined()) {
            comm.barrier();
            if (me == target) Busy.spin(2_000);
            if (me == 0) {
                MemorySegment into = a.allocate(8);
                long end = System.nanoTime() + 1_500_000_000L;
                while (System.nanoTime() < end) {
                    comm.rma().get(into, w, 0, target);
                    count++;
                }
                check(count > 100, "only " + count + " gets completed in 1.5 s against a busy target");
            }
            comm.barrier();
        }
        return count;
    }

    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }
}
