package dev.unicomm.api;

/**
 * The default {@link Rma#on(Stream)} for host backends: every operation first waits for the stream's
 * earlier work ({@link Stream#synchronize()}) and then runs at once, so it is ordered after that work
 * and, having returned, before anything enqueued on the stream later. Operations go through the
 * {@link Rma} that made the view, decorators included.
 */
final class HostStreamRma implements Rma {
    private final Rma rma;
    private final Stream stream;

    HostStreamRma(Rma rma, Stream stream) {
        if (stream == null) throw new IllegalArgumentException("stream must not be null");
        this.rma = rma;
        this.stream = stream;
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        stream.synchronize();
        rma.put(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        stream.synchronize();
        rma.get(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        stream.synchronize();
        rma.putNbi(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        stream.synchronize();
        rma.getNbi(dst, dstOffset, src, srcOffset, bytes, pe);
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
        stream.synchronize();
        rma.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
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
        stream.synchronize();
        rma.putSignalNbi(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        stream.synchronize();
        return rma.signalWaitUntil(signal, signalOffset, cmp, value);
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        stream.synchronize();
        return rma.signalFetch(signal, signalOffset);
    }

    @Override
    public void quiet() {
        stream.synchronize();
        rma.quiet();
    }

    @Override
    public void fence() {
        stream.synchronize();
        rma.fence();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        stream.synchronize();
        return rma.atomicFetch(buf, offset, pe);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        stream.synchronize();
        rma.atomicSet(buf, offset, value, pe);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        stream.synchronize();
        return rma.atomicFetchAdd(buf, offset, delta, pe);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        stream.synchronize();
        rma.atomicAdd(buf, offset, delta, pe);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        stream.synchronize();
        return rma.atomicCompareSwap(buf, offset, expected, desired, pe);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        stream.synchronize();
        return rma.atomicSwap(buf, offset, value, pe);
    }

    @Override
    public Rma on(Stream other) {
        return new HostStreamRma(rma, other);
    }
}
