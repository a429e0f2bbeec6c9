package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.backend.ascend.internal.AscendNatives.CopyKind;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RMA over Ascend SHMEM's host API.
 *
 * <h2>Signals: the API's 64-bit words on aclshmem's 32-bit signals</h2>
 * Ascend SHMEM's signal routines ({@code aclshmemx_putmem_signal}, {@code aclshmemx_signal_op_on_stream},
 * {@code aclshmemx_signal_wait_until_on_stream}) take an {@code int32_t *} signal address and
 * {@code int32_t} values. The API's signal word is 64 bits at an 8-byte-aligned offset; this backend
 * maps it exactly as follows:
 * <ul>
 *   <li>The signal is the 32-bit two's-complement integer in the word's <b>first four bytes</b>
 *       (its low half on these little-endian machines). The other four bytes are never read or
 *       written by signal operations.</li>
 *   <li>{@code putSignal} values, for {@code SET} and {@code ADD} alike, and {@code signalWaitUntil}
 *       comparison values must lie in {@code [Integer.MIN_VALUE, Integer.MAX_VALUE]}; any other value
 *       is rejected with {@link IllegalArgumentException} before a native call. A value is passed to
 *       aclshmem unchanged.</li>
 *   <li>{@code ADD} wraps modulo 2<sup>32</sup> as aclshmem's does (e.g. {@code Integer.MAX_VALUE + 1}
 *       reads back as {@code Integer.MIN_VALUE}).</li>
 *   <li>{@code signalFetch} and {@code signalWaitUntil} return the 32-bit signal sign-extended to
 *       {@code long}; comparisons are signed 32-bit comparisons, which agree with the API's signed
 *       64-bit ones for every accepted value.</li>
 * </ul>
 *
 * <h2>Completion</h2>
 * Blocking put/get return complete. Non-blocking ones with NPU-memory operands use
 * {@code aclshmem_putmem_nbi}/{@code aclshmem_getmem_nbi}; with host-memory operands they go through
 * the device staging buffer and complete before returning (allowed: completion is only promised by
 * {@link #quiet()}). {@link #quiet()} enqueues {@code aclshmemx_quiet_on_stream} on the backend's
 * internal stream and waits for it with {@code aclrtSynchronizeStreamWithTimeout}.
 * {@link #fence()} is {@link #quiet()}: Ascend SHMEM's host API has no fence, and quiet is stronger.
 * Remote atomics are not offered (the host API has none): the atomic methods throw
 * {@link UnsupportedCapabilityException}.
 *
 * <h2>Streams</h2>
 * The view from {@link #on(Stream)} enqueues {@code aclshmemx_putmem_on_stream},
 * {@code aclshmemx_getmem_on_stream}, {@code aclshmemx_signal_op_on_stream} (after an
 * {@code aclshmemx_quiet_on_stream}, so the signal follows the data) and
 * {@code aclshmemx_quiet_on_stream} and returns before they run, when every local operand is NPU
 * memory. A host-memory operand needs the staging buffer: the view then synchronizes the stream,
 * runs the operation to completion and returns. {@code signalWaitUntil} on a stream enqueues
 * {@code aclshmemx_signal_wait_until_on_stream} and, because it must return the value, waits for
 * the stream (with the communicator's timeout). On the host, wait-until enqueues the same call on
 * a stream of the calling thread's own and waits for it, so one thread's wait never holds up
 * another thread's quiet or barrier.
 *
 * <h2>Waits</h2>
 * Every wait (quiet, barrier, wait-until, stream synchronize) polls {@code aclrtStreamQuery} and the
 * rendezvous store's health: a dead rank ends it with {@link dev.unicomm.api.CommAbortedException},
 * the communicator's timeout with {@link dev.unicomm.api.CommTimeoutException}, and the stream's
 * unfinished work is then discarded (a 1 ms {@code aclrtSynchronizeStreamWithTimeout}, which drops
 * it) so the stream remains usable.
 */
final class AscendRma implements Rma {
    private static final java.lang.invoke.VarHandle SIGNAL = ValueLayout.JAVA_INT.varHandle();

    private final AscendCommunicator comm;
    /** The user's stream for a stream view, or {@code null} for host-ordered operations. */
    private final Stream stream;

    AscendRma(AscendCommunicator comm, Stream stream) {
        this.comm = comm;
        this.stream = stream;
    }

    // ---- put / get ---------------------------------------------------------------------------------

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        put(dst, dstOffset, src, srcOffset, bytes, pe, false);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        put(dst, dstOffset, src, srcOffset, bytes, pe, true);
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        get(dst, dstOffset, src, srcOffset, bytes, pe, false);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        get(dst, dstOffset, src, srcOffset, bytes, pe, true);
    }

    private void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe, boolean nbi) {
        long remote = buffer(dst).ptr + dstOffset;
        Operand s = comm.operand(src, srcOffset, bytes);
        if (s.engine()) {
            if (stream != null) AscendNatives.putOnStream(remote, s.address(), bytes, pe, stream.handle());
            else AscendNatives.put(remote, s.address(), bytes, pe, nbi);
            return;
        }
        drainStream("put");
        Staging st = comm.staging();
        st.lock.lock();
        try {
            for (long done = 0; done < bytes; done += st.bytes) {
                long n = Math.min(st.bytes, bytes - done);
                st.toDevice(s.host(), done, n);
                AscendNatives.put(
                        remote + done, st.device, n, pe, false); // blocking: the staging buffer is reused next
            }
        } finally {
            st.lock.unlock();
        }
    }

    private void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe, boolean nbi) {
        long remote = buffer(src).ptr + srcOffset;
        Operand d = comm.operand(dst, dstOffset, bytes);
        if (d.engine()) {
            if (stream != null) AscendNatives.getOnStream(d.address(), remote, bytes, pe, stream.handle());
            else AscendNatives.get(d.address(), remote, bytes, pe, nbi);
            return;
        }
        drainStream("get");
        Staging st = comm.staging();
        st.lock.lock();
        try {
            for (long done = 0; done < bytes; done += st.bytes) {
                long n = Math.min(st.bytes, bytes - done);
                AscendNatives.get(st.device, remote + done, n, pe, false);
                st.toHost(d.host(), done, n);
            }
        } finally {
            st.lock.unlock();
        }
    }

    // ---- signals -----------------------------------------------------------------------------------

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
        putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe, false);
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
        putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe, true);
    }

    private void putSignal(
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
        int v = signalValue("putSignal value", value);
        int code = op == SignalOp.SET ? 0 : 1; // ACLSHMEM_SIGNAL_SET / ACLSHMEM_SIGNAL_ADD
        long remote = buffer(dst).ptr + dstOffset;
        long sig = buffer(signal).ptr + signalOffset;
        Operand s = comm.operand(src, srcOffset, bytes);
        if (s.engine()) {
            if (stream != null) {
                long h = stream.handle();
                AscendNatives.putOnStream(remote, s.address(), bytes, pe, h);
                AscendNatives.quietOnStream(h); // the signal must not overtake the data
                AscendNatives.signalOpOnStream(sig, v, code, pe, h);
            } else {
                AscendNatives.putSignal(remote, s.address(), bytes, sig, v, code, pe, nbi);
            }
            return;
        }
        drainStream("putSignal");
        Staging st = comm.staging();
        st.lock.lock();
        try {
            if (bytes == 0) {
                AscendNatives.putSignal(remote, st.device, 0, sig, v, code, pe, false);
                return;
            }
            for (long done = 0; done < bytes; done += st.bytes) {
                long n = Math.min(st.bytes, bytes - done);
                st.toDevice(s.host(), done, n);
                if (done + n < bytes) {
                    AscendNatives.put(remote + done, st.device, n, pe, false);
                } else {
                    if (done > 0) comm.quietInternal("putSignal"); // earlier chunks land before the signal
                    AscendNatives.putSignal(remote + done, st.device, n, sig, v, code, pe, false);
                }
            }
        } finally {
            st.lock.unlock();
        }
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        int v = signalValue("signalWaitUntil value", value);
        long sig = buffer(signal).ptr + signalOffset;
        String what = "signalWaitUntil(" + cmp + " " + value + ") at offset " + signalOffset;
        if (stream != null) {
            AscendNatives.signalWaitOnStream(sig, cmp.ordinal(), v, stream.handle()); // Cmp order = ACLSHMEM_CMP_EQ..LE
            comm.await(stream.handle(), what);
        } else {
            long h = comm.waitStream(); // this thread's own: other threads' quiet and barrier do not queue behind
            // the wait
            AscendNatives.signalWaitOnStream(sig, cmp.ordinal(), v, h);
            comm.await(h, what);
        }
        return signalFetch(signal, signalOffset);
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        AscendBuffer b = buffer(signal);
        if (b.heap.hostSide) return (int) SIGNAL.getAcquire(b.segment(), signalOffset);
        Staging st = comm.staging();
        st.lock.lock();
        try {
            MemorySegment word = st.scratch(4);
            AscendNatives.memcpy(word.address(), b.ptr + signalOffset, 4, CopyKind.DEVICE_TO_HOST);
            return word.get(ValueLayout.JAVA_INT, 0);
        } finally {
            st.lock.unlock();
        }
    }

    /** The 32-bit signal value for {@code value}, or why it cannot be one. */
    static int signalValue(String what, long value) {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)
            throw new IllegalArgumentException(what + " " + value
                    + " does not fit Ascend SHMEM's 32-bit signals: the ascend " + "backend accepts signal values in ["
                    + Integer.MIN_VALUE + ", " + Integer.MAX_VALUE + "]");
        return (int) value;
    }

    // ---- ordering ----------------------------------------------------------------------------------

    @Override
    public void quiet() {
        if (stream != null) AscendNatives.quietOnStream(stream.handle());
        else comm.quietInternal("quiet");
    }

    @Override
    public void fence() {
        quiet();
    }

    // ---- atomics: not in Ascend SHMEM's host API ----------------------------------------------------

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        throw noAtomics("atomicFetch");
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        throw noAtomics("atomicSet");
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        throw noAtomics("atomicFetchAdd");
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        throw noAtomics("atomicAdd");
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        throw noAtomics("atomicCompareSwap");
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        throw noAtomics("atomicSwap");
    }

    private static UnsupportedCapabilityException noAtomics(String what) {
        return new UnsupportedCapabilityException(
                "ascend",
                Capability.ATOMICS,
                what + ": Ascend SHMEM's host API has no remote atomics (they exist only in device kernels)");
    }

    @Override
    public Rma on(Stream s) {
        return new AscendRma(comm, comm.checkStream(s));
    }

    // ---- helpers -----------------------------------------------------------------------------------

    /** Host operands bypass the stream: first let the stream's earlier work finish. */
    private void drainStream(String what) {
        if (stream != null) comm.await(stream.handle(), what + " on stream (staging a host operand)");
    }

    private AscendBuffer buffer(SymmetricBuffer b) {
        if (b instanceof AscendBuffer ab && ab.heap == comm.heap()) return ab;
        throw new IllegalArgumentException(b + " is not a buffer of this ascend communicator's heap");
    }
}
