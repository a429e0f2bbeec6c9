package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * NVSHMEM RMA, either host-issued ({@code stream == null}) or ordered on a CUDA stream.
 *
 * <p>Host-issued: every operation runs on the communicator's internal stream and, where the API
 * says "blocking", waits for it (bounded by the timeout). The local side may be host memory (any
 * segment, staged through a pinned bounce buffer and a device staging buffer) or device memory of this
 * PE's GPU. Host data moves pinned bounce buffer <-> device staging buffer <-> NVSHMEM, so NVSHMEM
 * only ever sees device memory. {@link #fence()} is a quiet (stronger, allowed). {@link #signalWaitUntil} polls the
 * word from the host, so it honours the timeout.
 *
 * <p>On a stream ({@code nvshmemx_*_on_stream}): puts, gets, put-with-signal, quiet and fence
 * return once enqueued; the local side must be device memory. Operations that return a value
 * ({@code signalWaitUntil}, {@code signalFetch}, fetching atomics) enqueue their work on the stream
 * and then wait for the stream (bounded by the timeout) to read the value. Non-fetching atomics
 * are enqueued as a one-thread kernel. Signal comparisons on a stream are NVSHMEM's (unsigned 64-bit);
 * host-side polling compares signed ({@link Cmp#test}): use non-negative signal values.
 */
final class NvshmemRma implements Rma {
    private final NvshmemCommunicator c;
    /** The communicator's internal stream and staging buffers (used under its lock). */
    private final HostStaging io;

    private final NvshmemStream stream;

    NvshmemRma(NvshmemCommunicator c, NvshmemStream stream) {
        this.c = c;
        this.io = c.io;
        this.stream = stream;
    }

    private static long sym(String what, SymmetricBuffer b, long offset) {
        if (b instanceof NvshmemBuffer nb) {
            nb.ensureOpen(what);
            return nb.address() + offset;
        }
        throw new IllegalArgumentException(what + ": " + b + " is not a buffer of this NVSHMEM heap");
    }

    /** The stream's handle, or an exception if the stream was closed after this view was made. */
    private long live() {
        c.ensureOpen();
        return stream.liveHandle();
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        doPut("put", dst, dstOffset, src, srcOffset, bytes, pe, false);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        doPut("putNbi", dst, dstOffset, src, srcOffset, bytes, pe, true);
    }

    private void doPut(
            String what,
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            int pe,
            boolean nbi) {
        long d = sym(what + " dst", dst, dstOffset);
        if (bytes == 0) return;
        if (stream != null) {
            NvOps.put(d, c.deviceAddress(what + " src", src, srcOffset), bytes, c.npe(pe), nbi, live());
            return;
        }
        c.lock.lock();
        try {
            c.ensureOpen();
            if (src.kind().isHost()) {
                stagedPut(d, src.segment(), srcOffset, bytes, pe, what);
            } else {
                NvOps.put(d, c.deviceAddress(what + " src", src, srcOffset), bytes, c.npe(pe), nbi, io.ctrl);
                if (!nbi) c.await(io.ctrl, what);
            }
        } finally {
            c.lock.unlock();
        }
    }

    /** Host source: through the bounce buffer, chunk by chunk (the bounce is reused, so each chunk is waited for). */
    private void stagedPut(long d, MemorySegment src, long srcOffset, long bytes, int pe, String what) {
        MemorySegment bounce = io.bounceSegment();
        for (long done = 0; done < bytes; ) {
            long n = Math.min(io.bounceBytes, bytes - done);
            MemorySegment.copy(src, srcOffset + done, bounce, 0, n);
            NvOps.copyAsync(io.staging, io.bounce, n, io.ctrl);
            NvOps.put(d + done, io.staging, n, c.npe(pe), false, io.ctrl);
            c.await(io.ctrl, what);
            done += n;
        }
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        doGet("get", dst, dstOffset, src, srcOffset, bytes, pe, false);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        doGet("getNbi", dst, dstOffset, src, srcOffset, bytes, pe, true);
    }

    private void doGet(
            String what,
            Memory dst,
            long dstOffset,
            SymmetricBuffer src,
            long srcOffset,
            long bytes,
            int pe,
            boolean nbi) {
        long s = sym(what + " src", src, srcOffset);
        if (bytes == 0) return;
        if (stream != null) {
            NvOps.get(c.deviceAddress(what + " dst", dst, dstOffset), s, bytes, c.npe(pe), nbi, live());
            return;
        }
        c.lock.lock();
        try {
            c.ensureOpen();
            if (dst.kind().isHost()) {
                // Host destination: filled before returning, also for getNbi (allowed: it may complete early).
                MemorySegment out = dst.segment();
                MemorySegment bounce = io.bounceSegment();
                for (long done = 0; done < bytes; ) {
                    long n = Math.min(io.bounceBytes, bytes - done);
                    NvOps.get(io.staging, s + done, n, c.npe(pe), false, io.ctrl);
                    NvOps.copyAsync(io.bounce, io.staging, n, io.ctrl);
                    c.await(io.ctrl, what);
                    MemorySegment.copy(bounce, 0, out, dstOffset + done, n);
                    done += n;
                }
            } else {
                NvOps.get(c.deviceAddress(what + " dst", dst, dstOffset), s, bytes, c.npe(pe), nbi, io.ctrl);
                if (!nbi) c.await(io.ctrl, what);
            }
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public void putSignal(
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
        doPutSignal("putSignal", dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe, false);
    }

    @Override
    public void putSignalNbi(
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
        doPutSignal("putSignalNbi", dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe, true);
    }

    private void doPutSignal(
            String what,
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe,
            boolean nbi) {
        long d = sym(what + " dst", dst, dstOffset);
        long sig = sym(what + " signal", signal, signalOffset);
        boolean add = op == SignalOp.ADD;
        if (stream != null) {
            NvOps.putSignal(
                    d, c.deviceAddress(what + " src", src, srcOffset), bytes, sig, value, add, c.npe(pe), nbi, live());
            return;
        }
        c.lock.lock();
        try {
            c.ensureOpen();
            if (src.kind().isHost() && bytes > 0) {
                // Stage all but the last chunk as plain puts, complete them, then put the last chunk with the signal.
                long last = Math.min(bytes, io.bounceBytes);
                long head = bytes - last;
                if (head > 0) {
                    stagedPut(d, src.segment(), srcOffset, head, pe, what);
                    NvOps.quiet(io.ctrl);
                }
                MemorySegment bounce = io.bounceSegment();
                MemorySegment.copy(src.segment(), srcOffset + head, bounce, 0, last);
                NvOps.copyAsync(io.staging, io.bounce, last, io.ctrl);
                NvOps.putSignal(d + head, io.staging, last, sig, value, add, c.npe(pe), false, io.ctrl);
                c.await(io.ctrl, what);
            } else {
                long s = bytes == 0 ? d : c.deviceAddress(what + " src", src, srcOffset);
                NvOps.putSignal(d, s, bytes, sig, value, add, c.npe(pe), nbi, io.ctrl);
                if (!nbi) c.await(io.ctrl, what);
            }
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        long sig = sym("signalWaitUntil", signal, signalOffset);
        if (stream != null) {
            long s = live();
            NvOps.signalWait(sig, cmp.ordinal(), value, s);
            return readWord(sig, s);
        }
        long start = System.nanoTime(), limit = c.timeout().toNanos(), park = 1_000;
        while (true) {
            c.ensureOpen();
            long v = readWord(sig, NvOps.HOST);
            if (cmp.test(v, value)) return v;
            c.checkHealthy();
            long waited = System.nanoTime() - start;
            if (waited > limit)
                throw new CommTimeoutException(
                        "signalWaitUntil(signal " + cmp + " " + value + ", last seen " + v + ")", c.timeout());
            if (waited > 100_000) {
                LockSupport.parkNanos(park);
                park = Math.min(park * 2, 500_000);
            }
        }
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        long sig = sym("signalFetch", signal, signalOffset);
        c.ensureOpen();
        return readWord(sig, stream == null ? NvOps.HOST : live());
    }

    @Override
    public void quiet() {
        if (stream != null) {
            NvOps.quiet(live());
            return;
        }
        c.lock.lock();
        try {
            c.ensureOpen();
            NvOps.quiet(io.ctrl);
            c.await(io.ctrl, "quiet");
        } finally {
            c.lock.unlock();
        }
    }

    /** NVSHMEM has no fence on a stream; a quiet orders at least as strongly. */
    @Override
    public void fence() {
        quiet();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return amo(NvOps.AMO_FETCH, "atomicFetch", buf, offset, 0, 0, pe, true);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        amo(NvOps.AMO_SET, "atomicSet", buf, offset, value, 0, pe, false);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return amo(NvOps.AMO_FETCH_ADD, "atomicFetchAdd", buf, offset, delta, 0, pe, true);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        amo(NvOps.AMO_ADD, "atomicAdd", buf, offset, delta, 0, pe, false);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return amo(NvOps.AMO_CSWAP, "atomicCompareSwap", buf, offset, expected, desired, pe, true);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return amo(NvOps.AMO_SWAP, "atomicSwap", buf, offset, value, 0, pe, true);
    }

    /** One device-side atomic (a one-thread kernel); fetching ones wait for the stream to read the result. */
    private long amo(int op, String what, SymmetricBuffer buf, long offset, long a, long b, int pe, boolean fetch) {
        long addr = sym(what, buf, offset);
        if (stream != null && !fetch) {
            NvOps.atomic(op, addr, a, b, c.npe(pe), 0, live());
            return 0;
        }
        c.lock.lock();
        try {
            c.ensureOpen();
            long s = stream == null ? io.ctrl : live();
            NvOps.atomic(op, addr, a, b, c.npe(pe), io.slot(), s);
            c.await(s, what);
            return io.readSlot();
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public Rma on(Stream s) {
        c.ensureOpen();
        return new NvshmemRma(c, c.deviceRuntime().own("Rma.on", s));
    }

    /** Reads the 64-bit word at device address {@code addr} (host view: through the poll stream). */
    private long readWord(long addr, long on) {
        c.lock.lock();
        try {
            long s = on == NvOps.HOST ? io.poll : on;
            NvOps.copyAsync(io.slot(), addr, 8, s);
            c.await(s, "reading a signal word");
            return io.readSlot();
        } finally {
            c.lock.unlock();
        }
    }
}
