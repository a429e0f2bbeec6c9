package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.NativeCallException;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * RMA over one RC queue pair per target PE (a loopback one for this PE). Every work request is
 * signaled; {@link #quiet()} polls the shared completion queue until nothing is outstanding.
 * Local memory outside the registered heap goes through a registered staging ring: puts copy into
 * it (so the source is reusable at once), gets land in it and are copied out at completion.
 * Atomics are verbs fetch-add / compare-swap on 8-byte-aligned words; fetch, set and swap are
 * built from them, so every update of a word is a NIC atomic. Not thread-safe beyond the
 * per-PE serialization of its public methods (OpenSHMEM's single-threaded model).
 */
final class RdmaRma implements Rma {
    static final int SEND_DEPTH = 512;
    private static final long MAX_WR_BYTES = 1L << 30;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private record CopyOut(long stagingOffset, MemorySegment dst, long bytes) {}

    private final int rank;
    private final String device;
    private final QueuePair[] qps; // by target PE
    private final long[] remoteHeap; // base address of each PE's heap
    private final int[] remoteRkey;
    private final MemoryRegion heapMr;
    private final MemorySegment heap;
    private final MemoryRegion stagingMr;
    private final MemorySegment staging; // [ring | atomic result word]
    private final long ringSize;
    private final CompletionQueue cq;
    private final Duration timeout;
    private final int[] outstandingPerPe;
    private final List<CopyOut> copies = new ArrayList<>();
    private final long[] wc = new long[64 * CompletionQueue.WC_LONGS];
    private long ringPos;
    private int outstanding;
    private long nextId;
    private CommException broken;

    RdmaRma(
            int rank,
            String device,
            QueuePair[] qps,
            long[] remoteHeap,
            int[] remoteRkey,
            MemoryRegion heapMr,
            MemorySegment heap,
            MemoryRegion stagingMr,
            MemorySegment staging,
            CompletionQueue cq,
            Duration timeout) {
        this.rank = rank;
        this.device = device;
        this.qps = qps;
        this.remoteHeap = remoteHeap;
        this.remoteRkey = remoteRkey;
        this.heapMr = heapMr;
        this.heap = heap;
        this.stagingMr = stagingMr;
        this.staging = staging;
        this.ringSize = staging.byteSize() - 8;
        this.cq = cq;
        this.timeout = timeout;
        this.outstandingPerPe = new int[qps.length];
    }

    // ------------------------------------------------------------------ put / get

    @Override
    public synchronized void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public synchronized void putNbi(
            SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        long remote = remoteHeap[pe] + dst.offset() + dstOffset;
        long local = src.address() + srcOffset;
        if (inHeap(src, srcOffset, bytes)) {
            for (long done = 0; done < bytes; done += MAX_WR_BYTES) {
                long n = Math.min(MAX_WR_BYTES, bytes - done);
                rdma(QueuePair.OP_WRITE, pe, local + done, heapMr.lkey(), remote + done, n);
            }
            return;
        }
        MemorySegment from = src.segment();
        for (long done = 0; done < bytes; done += ringSize) {
            long n = Math.min(ringSize, bytes - done);
            long at = reserve(n);
            MemorySegment.copy(from, srcOffset + done, staging, at, n);
            rdma(QueuePair.OP_WRITE, pe, staging.address() + at, stagingMr.lkey(), remote + done, n);
        }
    }

    @Override
    public synchronized void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        getNbi(dst, dstOffset, src, srcOffset, bytes, pe);
        quiet();
    }

    @Override
    public synchronized void getNbi(
            Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        long remote = remoteHeap[pe] + src.offset() + srcOffset;
        if (inHeap(dst, dstOffset, bytes)) {
            long local = dst.address() + dstOffset;
            for (long done = 0; done < bytes; done += MAX_WR_BYTES) {
                long n = Math.min(MAX_WR_BYTES, bytes - done);
                rdma(QueuePair.OP_READ, pe, local + done, heapMr.lkey(), remote + done, n);
            }
            return;
        }
        MemorySegment to = dst.segment();
        for (long done = 0; done < bytes; done += ringSize) {
            long n = Math.min(ringSize, bytes - done);
            long at = reserve(n);
            rdma(QueuePair.OP_READ, pe, staging.address() + at, stagingMr.lkey(), remote + done, n);
            copies.add(new CopyOut(at, to.asSlice(dstOffset + done, n), n));
        }
    }

    // ------------------------------------------------------------------ signals

    @Override
    public synchronized void putSignal(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe) {
        putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
        // The data must be placed at the target before the signal can be seen: wait for its completion.
        quiet();
        long word = remoteHeap[pe] + signal.offset() + signalOffset;
        if (op == SignalOp.ADD) {
            atomic(pe, QueuePair.ATOMIC_FETCH_ADD, word, value, 0);
        } else {
            swap(pe, word, value);
        }
    }

    @Override
    public synchronized void putSignalNbi(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe) {
        putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        MemorySegment seg = signal.segment();
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (true) {
            long v = (long) WORD.getVolatile(seg, signalOffset);
            if (cmp.test(v, value)) return v;
            if (System.nanoTime() - deadline > 0)
                throw new CommTimeoutException(
                        "signalWaitUntil(offset " + signalOffset + " " + cmp + " " + value + ", last seen " + v + ")",
                        timeout);
            if (++spins > 1000) Thread.yield();
            else Thread.onSpinWait();
        }
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return (long) WORD.getVolatile(signal.segment(), signalOffset);
    }

    // ------------------------------------------------------------------ ordering

    @Override
    public synchronized void quiet() {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (outstanding > 0) {
            if (!drainOnce() && System.nanoTime() - deadline > 0)
                throw new CommTimeoutException(
                        "quiet: " + outstanding + " RDMA operation(s) on " + device + " still outstanding", timeout);
        }
        throwIfBroken();
        for (CopyOut c : copies) MemorySegment.copy(staging, c.stagingOffset(), c.dst(), 0, c.bytes());
        copies.clear();
        ringPos = 0;
    }

    /** Ordering per target: everything issued before completes first (stronger than needed, always correct). */
    @Override
    public synchronized void fence() {
        quiet();
    }

    // ------------------------------------------------------------------ atomics

    @Override
    public synchronized long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return atomic(pe, QueuePair.ATOMIC_FETCH_ADD, remoteHeap[pe] + buf.offset() + offset, 0, 0);
    }

    @Override
    public synchronized void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        swap(pe, remoteHeap[pe] + buf.offset() + offset, value);
    }

    @Override
    public synchronized long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return atomic(pe, QueuePair.ATOMIC_FETCH_ADD, remoteHeap[pe] + buf.offset() + offset, delta, 0);
    }

    @Override
    public synchronized void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        atomic(pe, QueuePair.ATOMIC_FETCH_ADD, remoteHeap[pe] + buf.offset() + offset, delta, 0);
    }

    @Override
    public synchronized long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return atomic(pe, QueuePair.ATOMIC_COMPARE_SWAP, remoteHeap[pe] + buf.offset() + offset, expected, desired);
    }

    @Override
    public synchronized long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return swap(pe, remoteHeap[pe] + buf.offset() + offset, value);
    }

    @Override
    public Rma on(Stream stream) {
        return this;
    } // a host backend: a stream is program order

    /** Verbs has no swap: compare-and-swap until the word we compared against was the word there. */
    private long swap(int pe, long remote, long value) {
        long seen = atomic(pe, QueuePair.ATOMIC_FETCH_ADD, remote, 0, 0);
        while (true) {
            long prev = atomic(pe, QueuePair.ATOMIC_COMPARE_SWAP, remote, seen, value);
            if (prev == seen) return prev;
            seen = prev;
        }
    }

    /** One atomic, completed before returning; the old value comes back through the result word. */
    private long atomic(int pe, int op, long remote, long compareAdd, long swap) {
        long result = staging.address() + ringSize;
        room(pe);
        long id = id(pe);
        check(
                qps[pe].postAtomic(id, result, stagingMr.lkey(), remote, remoteRkey[pe], op, compareAdd, swap),
                "ibv_post_send(ATOMIC)");
        issued(pe);
        quiet();
        return staging.get(ValueLayout.JAVA_LONG, ringSize);
    }

    // ------------------------------------------------------------------ posting and completions

    private boolean inHeap(Memory m, long offset, long bytes) {
        long a = m.address();
        return m.kind().isHost()
                && a != 0
                && a + offset >= heap.address()
                && a + offset + bytes <= heap.address() + heap.byteSize();
    }

    /** A staging range of {@code n} bytes, 64-byte aligned; completes everything first when the ring is full. */
    private long reserve(long n) {
        long at = (ringPos + 63) & ~63L;
        if (at + n > ringSize) {
            quiet();
            at = 0;
        }
        ringPos = at + n;
        return at;
    }

    private void rdma(int op, int pe, long local, int lkey, long remote, long n) {
        room(pe);
        long id = id(pe);
        check(
                qps[pe].postRdma(op, id, 1, new long[] {local}, lkey, new long[] {remote}, remoteRkey[pe], (int) n, 0),
                op == QueuePair.OP_READ ? "ibv_post_send(RDMA_READ)" : "ibv_post_send(RDMA_WRITE)");
        issued(pe);
    }

    private long id(int pe) {
        return ((long) pe << 40) | (nextId++ & ((1L << 40) - 1));
    }

    private void issued(int pe) {
        outstanding++;
        outstandingPerPe[pe]++;
    }

    /** Waits until the queue pair to {@code pe} has room for one more request. */
    private void room(int pe) {
        throwIfBroken();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (outstandingPerPe[pe] >= SEND_DEPTH) {
            if (!drainOnce() && System.nanoTime() - deadline > 0)
                throw new CommTimeoutException("waiting for send-queue space towards PE " + pe, timeout);
        }
    }

    private boolean drainOnce() {
        int n = cq.poll(wc, 64);
        for (int i = 0; i < n; i++) {
            int pe = (int) (WorkCompletions.wrId(wc, i) >>> 40);
            outstanding--;
            outstandingPerPe[pe]--;
            int status = WorkCompletions.status(wc, i);
            if (status != WorkCompletions.SUCCESS
                    && (broken == null || broken.getMessage().contains("WR_FLUSH_ERR"))) {
                broken = new CommException("RDMA operation towards PE " + pe + " on " + device + " failed with "
                        + WorkCompletions.statusName(status) + " (vendor error 0x"
                        + Integer.toHexString(WorkCompletions.vendorErr(wc, i))
                        + "): " + WorkCompletions.hint(status));
            }
        }
        return n > 0;
    }

    private void throwIfBroken() {
        if (broken != null) throw new CommException(broken.getMessage() + " (this PE's RMA cannot continue)", broken);
    }

    private void check(int rc, String call) {
        if (rc < 0) throw new NativeCallException(call, rc, Verbs.lastError());
    }

    synchronized int outstanding() {
        return outstanding;
    }

    int rankOfThisPe() {
        return rank;
    }
}
