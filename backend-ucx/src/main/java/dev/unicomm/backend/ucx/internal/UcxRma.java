package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * RMA over UCP: {@code ucp_put_nbx}/{@code ucp_get_nbx} on the peers' mapped heaps, 64-bit atomics with
 * {@code ucp_atomic_op_nbx}, quiet as {@code ucp_worker_flush_nbx}, fence as {@code ucp_worker_fence}.
 * Blocking calls wait for their request; non-blocking puts and gets release theirs at once (UCX
 * completes them, quiet's flush waits for them). Atomics always wait: their operand and reply words
 * are this object's, reused by the next call. Local memory that is not native (a Java array) is
 * staged through a native copy, so those calls are blocking. Issuing methods are serialised per PE
 * (they share the request-parameter structs); signal waits are not, so a waiter never blocks a sender.
 */
final class UcxRma implements Rma {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private static final int WAIT_SPIN = 2_000;
    private static final long WAIT_PARK_NANOS = 20_000;

    private final UcxWorker w;
    private final Ucp ucp;
    private final Peers peers;
    private final Duration timeout;
    private final Runnable health;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment plain; // ucp_request_param_t, no fields: contiguous bytes
    private final MemorySegment post; // datatype = contig(8): atomics without a result
    private final MemorySegment fetch; // datatype + reply buffer: atomics with a result
    private final MemorySegment operand;
    private final MemorySegment reply;

    UcxRma(UcxWorker w, Peers peers, Duration timeout, Runnable health) {
        this.w = w;
        this.ucp = w.ucp;
        this.peers = peers;
        this.timeout = timeout;
        this.health = health;
        this.plain = arena.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
        this.post = arena.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
        this.fetch = arena.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
        this.operand = arena.allocate(8, 8);
        this.reply = arena.allocate(8, 8);
        post.set(ValueLayout.JAVA_INT, UcpAbi.REQ_OP_ATTR_MASK, UcpAbi.OP_ATTR_FIELD_DATATYPE);
        post.set(ValueLayout.JAVA_LONG, UcpAbi.REQ_DATATYPE, UcpAbi.DATATYPE_CONTIG_8);
        fetch.set(
                ValueLayout.JAVA_INT,
                UcpAbi.REQ_OP_ATTR_MASK,
                UcpAbi.OP_ATTR_FIELD_DATATYPE | UcpAbi.OP_ATTR_FIELD_REPLY_BUFFER);
        fetch.set(ValueLayout.JAVA_LONG, UcpAbi.REQ_DATATYPE, UcpAbi.DATATYPE_CONTIG_8);
        fetch.set(ValueLayout.ADDRESS, UcpAbi.REQ_REPLY_BUFFER, reply);
    }

    // ---- put / get -------------------------------------------------------------------------

    @Override
    public synchronized void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        if (bytes == 0) return;
        transfer(true, src.segment(), srcOffset, bytes, dst.offset() + dstOffset, pe, true);
    }

    @Override
    public synchronized void putNbi(
            SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        if (bytes == 0) return;
        transfer(true, src.segment(), srcOffset, bytes, dst.offset() + dstOffset, pe, false);
    }

    @Override
    public synchronized void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        if (bytes == 0) return;
        transfer(false, dst.segment(), dstOffset, bytes, src.offset() + srcOffset, pe, true);
    }

    @Override
    public synchronized void getNbi(
            Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        if (bytes == 0) return;
        transfer(false, dst.segment(), dstOffset, bytes, src.offset() + srcOffset, pe, false);
    }

    /** One put or get of {@code bytes} between {@code local[localOffset..]} and PE {@code pe}'s heap at {@code heapOffset}. */
    private void transfer(
            boolean put, MemorySegment local, long localOffset, long bytes, long heapOffset, int pe, boolean blocking) {
        long remote = peers.address(pe, heapOffset);
        String call = put ? "ucp_put_nbx" : "ucp_get_nbx";
        if (local.isNative()) {
            long addr = local.address() + localOffset;
            MemorySegment ep = ep(pe, call);
            if (blocking) {
                w.await(
                        put
                                ? ucp.put(ep, addr, bytes, remote, peers.rkey(pe), plain)
                                : ucp.get(ep, addr, bytes, remote, peers.rkey(pe), plain),
                        call,
                        pe,
                        timeout,
                        health);
                return;
            }
            // Non-blocking: the caller is at work on the worker, so the progress thread stays aside (UcxWorker), and an
            // operation UCX could not finish in place (socket full) gets one progress call here, as the next one will.
            w.enterWait();
            try {
                MemorySegment req = put
                        ? ucp.put(ep, addr, bytes, remote, peers.rkey(pe), plain)
                        : ucp.get(ep, addr, bytes, remote, peers.rkey(pe), plain);
                release(req, call, pe);
                if (req.address() != 0) w.progressOnce();
            } finally {
                w.exitWait();
            }
            return;
        }
        Arena staging = Arena.ofConfined(); // a Java array has no stable address: copy
        boolean completed = false;
        try {
            MemorySegment tmp = staging.allocate(bytes, 8);
            if (put) MemorySegment.copy(local, localOffset, tmp, 0, bytes);
            MemorySegment ep = ep(pe, call);
            MemorySegment req = put
                    ? ucp.put(ep, tmp.address(), bytes, remote, peers.rkey(pe), plain)
                    : ucp.get(ep, tmp.address(), bytes, remote, peers.rkey(pe), plain);
            w.await(req, call, pe, timeout, health);
            completed = true;
            if (!put) MemorySegment.copy(tmp, 0, local, localOffset, bytes);
        } finally {
            // After a failed wait UCX may still write into the copy: leave it allocated rather than free it under UCX.
            if (completed) staging.close();
        }
    }

    /** Hands an outstanding request back to UCX (it completes under the next flush); errors are reported now. */
    private void release(MemorySegment req, String call, int pe) {
        long p = req.address();
        if (p == 0) return;
        if (UcpAbi.isError(p)) throw Ucx.failure(ucp, UcpAbi.status(p), call, pe, health);
        ucp.requestFree(req);
    }

    // ---- signals ---------------------------------------------------------------------------

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
        put(dst, dstOffset, src, srcOffset, bytes, pe);
        fence(); // the data is visible at pe before the signal
        signal(signal.offset() + signalOffset, value, op, pe);
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
        putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
        fence();
        signal(signal.offset() + signalOffset, value, op, pe);
    }

    private void signal(long heapOffset, long value, SignalOp op, int pe) {
        if (op == SignalOp.ADD) amo(UcpAbi.ATOMIC_OP_ADD, heapOffset, value, pe);
        else amoFetch(UcpAbi.ATOMIC_OP_SWAP, heapOffset, value, 0, pe); // SET: a swap whose result is dropped
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        MemorySegment word = signal.segment();
        long deadline = System.nanoTime() + timeout.toNanos();
        w.enterWait();
        try {
            return waitUntil(word, signal.offset(), signalOffset, cmp, value, deadline);
        } finally {
            w.exitWait();
        }
    }

    private long waitUntil(
            MemorySegment word, long bufferOffset, long signalOffset, Cmp cmp, long value, long deadline) {
        for (long i = 0, idle = 0; ; i++) {
            long v = (long) WORD.getAcquire(word, signalOffset);
            if (cmp.test(v, value)) return v;
            // Progress here too: the updates arrive through this PE's worker (the progress thread also drives it).
            if (w.progressOnce() != 0) idle = 0;
            else if (++idle > WAIT_SPIN) LockSupport.parkNanos(WAIT_PARK_NANOS);
            if ((i & 63) == 63) {
                health.run();
                if (System.nanoTime() - deadline > 0)
                    throw new CommTimeoutException(
                            "signalWaitUntil(offset " + (bufferOffset + signalOffset) + " " + cmp + " " + value
                                    + ", last seen " + v + ")",
                            timeout);
            }
        }
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return (long) WORD.getVolatile(signal.segment(), signalOffset);
    }

    // ---- completion and ordering -----------------------------------------------------------

    @Override
    public synchronized void quiet() {
        w.await(ucp.flush(w.worker, plain), "ucp_worker_flush_nbx", -1, timeout, health);
    }

    @Override
    public synchronized void fence() {
        Ucx.check(ucp, ucp.fence(w.worker), "ucp_worker_fence");
    }

    // ---- atomics ---------------------------------------------------------------------------

    @Override
    public synchronized long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return amoFetch(UcpAbi.ATOMIC_OP_ADD, buf.offset() + offset, 0, 0, pe);
    }

    @Override
    public synchronized void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        amoFetch(UcpAbi.ATOMIC_OP_SWAP, buf.offset() + offset, value, 0, pe);
    }

    @Override
    public synchronized long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return amoFetch(UcpAbi.ATOMIC_OP_ADD, buf.offset() + offset, delta, 0, pe);
    }

    @Override
    public synchronized void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        amo(UcpAbi.ATOMIC_OP_ADD, buf.offset() + offset, delta, pe);
    }

    @Override
    public synchronized long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        // CSWAP: the operand is the value compared, the reply buffer holds the new value going in and the old one
        // coming back.
        return amoFetch(UcpAbi.ATOMIC_OP_CSWAP, buf.offset() + offset, expected, desired, pe);
    }

    @Override
    public synchronized long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return amoFetch(UcpAbi.ATOMIC_OP_SWAP, buf.offset() + offset, value, 0, pe);
    }

    private void amo(int op, long heapOffset, long value, int pe) {
        operand.set(ValueLayout.JAVA_LONG, 0, value);
        w.await(
                ucp.atomic(
                        ep(pe, "ucp_atomic_op_nbx"), op, operand, peers.address(pe, heapOffset), peers.rkey(pe), post),
                "ucp_atomic_op_nbx",
                pe,
                timeout,
                health);
    }

    private long amoFetch(int op, long heapOffset, long value, long replyIn, int pe) {
        operand.set(ValueLayout.JAVA_LONG, 0, value);
        reply.set(ValueLayout.JAVA_LONG, 0, replyIn);
        w.await(
                ucp.atomic(
                        ep(pe, "ucp_atomic_op_nbx"), op, operand, peers.address(pe, heapOffset), peers.rkey(pe), fetch),
                "ucp_atomic_op_nbx",
                pe,
                timeout,
                health);
        return reply.get(ValueLayout.JAVA_LONG, 0);
    }

    /** PE {@code pe}'s endpoint, after checking that UCX has not reported it failed. */
    private MemorySegment ep(int pe, String call) {
        byte f = peers.failure(pe);
        if (f != 0) throw Ucx.failure(ucp, f, call, pe, health);
        return peers.ep(pe);
    }

    /** Frees the parameter structs (after the worker stopped using them). */
    void release() {
        arena.close();
    }

    @Override
    public String toString() {
        return "UcxRma[" + peers + "]";
    }
}
