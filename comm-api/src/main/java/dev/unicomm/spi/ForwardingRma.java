package dev.unicomm.spi;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;

/**
 * An {@link Rma} that passes every call to another one: the base of a backend that reuses an existing
 * backend's data path and replaces part of it (an asynchronous put engine, a tracing layer, a test
 * double with a planted fault). Override what you change; everything else is forwarded, including
 * {@link #on(Stream)}, whose view therefore bypasses this class — override it too when the change must
 * apply to stream-ordered calls.
 */
public class ForwardingRma implements Rma {
    private final Rma delegate;

    /** @param delegate the RMA every call goes to unless overridden */
    public ForwardingRma(Rma delegate) {
        if (delegate == null) throw new IllegalArgumentException("delegate must not be null");
        this.delegate = delegate;
    }

    /** The RMA calls go to. */
    protected final Rma delegate() {
        return delegate;
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        delegate.put(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        delegate.get(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        delegate.putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        delegate.getNbi(dst, dstOffset, src, srcOffset, bytes, pe);
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
        delegate.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
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
        delegate.putSignalNbi(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        return delegate.signalWaitUntil(signal, signalOffset, cmp, value);
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return delegate.signalFetch(signal, signalOffset);
    }

    @Override
    public void quiet() {
        delegate.quiet();
    }

    @Override
    public void fence() {
        delegate.fence();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return delegate.atomicFetch(buf, offset, pe);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        delegate.atomicSet(buf, offset, value, pe);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return delegate.atomicFetchAdd(buf, offset, delta, pe);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        delegate.atomicAdd(buf, offset, delta, pe);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return delegate.atomicCompareSwap(buf, offset, expected, desired, pe);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return delegate.atomicSwap(buf, offset, value, pe);
    }

    @Override
    public Rma on(Stream stream) {
        return delegate.on(stream);
    }
}
