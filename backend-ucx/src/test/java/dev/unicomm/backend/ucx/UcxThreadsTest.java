package dev.unicomm.backend.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Several PEs as threads of one JVM, each with its own UCP context and worker (UCX's default
 * transports: self, shared memory, tcp). Quick checks of the data path before the kit's processes.
 */
class UcxThreadsTest {
    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    private static ThreadJob ucx(int ranks) {
        return ThreadJob.of(new UcxBackendProvider(), ranks);
    }

    @Test
    void ringPutThenBarrierDeliversToTheRightNeighbour() {
        List<Long> got = ucx(3).values(comm -> {
            int n = comm.size(), me = comm.rank();
            try (SymmetricBuffer buf = comm.heap().allocate(8 * n)) {
                comm.rma().put(buf, 8L * me, MemorySegment.ofArray(new long[] {1000L + me}), (me + 1) % n);
                comm.barrier();
                return buf.segment().get(ValueLayout.JAVA_LONG, 8L * ((me + n - 1) % n));
            }
        });
        assertEquals(List.of(1002L, 1000L, 1001L), got);
    }

    @Test
    void getReadsThePeersBytes() {
        List<Boolean> ok = ucx(2).values(comm -> {
            try (SymmetricBuffer buf = comm.heap().allocate(128 << 10)) {
                buf.segment().fill((byte) (comm.rank() + 7));
                comm.barrier();
                byte[] into = new byte[128 << 10];
                comm.rma().get(MemorySegment.ofArray(into), buf, 0, 1 - comm.rank());
                comm.barrier();
                byte want = (byte) (1 - comm.rank() + 7);
                for (byte b : into) if (b != want) return false;
                return true;
            }
        });
        assertEquals(List.of(true, true), ok);
    }

    @Test
    void concurrentFetchAddsAndCompareSwapAreAtomic() {
        int perPe = 2_000;
        List<Long> sums = ucx(3).values(comm -> {
            try (SymmetricBuffer buf = comm.heap().allocate(16)) {
                for (int i = 0; i < perPe; i++) comm.rma().atomicFetchAdd(buf, 0, 1, 0);
                long seen;
                do seen = comm.rma().atomicFetch(buf, 8, 1);
                while (comm.rma().atomicCompareSwap(buf, 8, seen, seen + 5, 1) != seen);
                comm.barrier();
                long v = comm.rma().atomicFetch(buf, 0, 0) * 1000 + comm.rma().atomicFetch(buf, 8, 1);
                comm.barrier();
                return v;
            }
        });
        sums.forEach(s -> assertEquals(3L * perPe * 1000 + 15, s));
    }

    @Test
    void putWithSignalMakesTheDataVisibleBeforeTheSignal() {
        int rounds = 300, len = 4096;
        List<Boolean> ok = ucx(2).values(comm -> {
            try (SymmetricBuffer data = comm.heap().allocate(len);
                    SymmetricBuffer sig = comm.heap().allocate(8)) {
                if (comm.rank() == 0) {
                    byte[] src = new byte[len];
                    for (int r = 1; r <= rounds; r++) {
                        Arrays.fill(src, (byte) r);
                        comm.rma()
                                .putSignal(
                                        data,
                                        0,
                                        dev.unicomm.api.Memory.of(MemorySegment.ofArray(src)),
                                        0,
                                        len,
                                        sig,
                                        0,
                                        r,
                                        SignalOp.SET,
                                        1);
                        comm.rma().signalWaitUntil(sig, 0, Cmp.EQ, -r); // the ack
                    }
                    return true;
                }
                boolean good = true;
                for (int r = 1; r <= rounds; r++) {
                    comm.rma().signalWaitUntil(sig, 0, Cmp.EQ, r);
                    for (long i = 0; i < len; i++) good &= data.segment().get(ValueLayout.JAVA_BYTE, i) == (byte) r;
                    comm.rma().atomicSet(sig, 0, -r, 0);
                }
                return good;
            }
        });
        assertEquals(List.of(true, true), ok);
    }
}
