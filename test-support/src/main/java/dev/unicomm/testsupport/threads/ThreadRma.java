package dev.unicomm.testsupport.threads;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** RMA between thread-PEs: copies plus atomic 64-bit words; waits spin, then yield, with a timeout. */
final class ThreadRma implements Rma {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private final ThreadWorld w;

    ThreadRma(ThreadWorld w) {
        this.w = w;
    }

    private MemorySegment remote(SymmetricBuffer b, int pe) {
        return ((ThreadBuffer) b).on(pe);
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        MemorySegment.copy(src.segment(), srcOffset, remote(dst, pe), dstOffset, bytes);
        VarHandle.fullFence();
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        VarHandle.fullFence();
        MemorySegment.copy(remote(src, pe), srcOffset, dst.segment(), dstOffset, bytes);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        put(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        get(dst, dstOffset, src, srcOffset, bytes, pe);
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
        put(dst, dstOffset, src, srcOffset, bytes, pe);
        MemorySegment s = remote(signal, pe);
        if (op == SignalOp.SET) WORD.setVolatile(s, signalOffset, value);
        else WORD.getAndAdd(s, signalOffset, value);
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
        putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        MemorySegment s = signal.segment();
        long deadline = System.nanoTime() + w.timeout.toNanos();
        for (int spins = 0; ; spins++) {
            long v = (long) WORD.getVolatile(s, signalOffset);
            if (cmp.test(v, value)) return v;
            if (spins > 100) {
                if (System.nanoTime() > deadline) throw new CommTimeoutException("signal wait", w.timeout);
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return (long) WORD.getVolatile(signal.segment(), signalOffset);
    }

    @Override
    public void quiet() {
        VarHandle.fullFence();
    }

    @Override
    public void fence() {
        VarHandle.fullFence();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return (long) WORD.getVolatile(remote(buf, pe), offset);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        WORD.setVolatile(remote(buf, pe), offset, value);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return (long) WORD.getAndAdd(remote(buf, pe), offset, delta);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        WORD.getAndAdd(remote(buf, pe), offset, delta);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return (long) WORD.compareAndExchange(remote(buf, pe), offset, expected, desired);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return (long) WORD.getAndSet(remote(buf, pe), offset, value);
    }

    @Override
    public Rma on(Stream stream) {
        return this;
    }
}
