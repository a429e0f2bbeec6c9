package dev.unicomm.conformance.broken;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;

/** Passes every call to a real backend's RMA; the broken decorators override what they break. */
class ForwardingRma implements Rma {
    final Rma raw;

    ForwardingRma(Rma raw) { this.raw = raw; }

    @Override public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        raw.put(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        raw.get(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        raw.putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        raw.getNbi(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override public void putSignal(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes,
                                    SymmetricBuffer signal, long signalOffset, long value, SignalOp op, int pe) {
        raw.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override public void putSignalNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes,
                                       SymmetricBuffer signal, long signalOffset, long value, SignalOp op, int pe) {
        raw.putSignalNbi(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        return raw.signalWaitUntil(signal, signalOffset, cmp, value);
    }

    @Override public long signalFetch(SymmetricBuffer signal, long signalOffset) { return raw.signalFetch(signal, signalOffset); }

    @Override public void quiet() { raw.quiet(); }

    @Override public void fence() { raw.fence(); }

    @Override public long atomicFetch(SymmetricBuffer buf, long offset, int pe) { return raw.atomicFetch(buf, offset, pe); }

    @Override public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) { raw.atomicSet(buf, offset, value, pe); }

    @Override public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return raw.atomicFetchAdd(buf, offset, delta, pe);
    }

    @Override public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) { raw.atomicAdd(buf, offset, delta, pe); }

    @Override public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return raw.atomicCompareSwap(buf, offset, expected, desired, pe);
    }

    @Override public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) { return raw.atomicSwap(buf, offset, value, pe); }

    @Override public Rma on(Stream stream) { return raw.on(stream); }
}
