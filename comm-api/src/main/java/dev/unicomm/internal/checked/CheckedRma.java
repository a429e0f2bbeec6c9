package dev.unicomm.internal.checked;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;

/** Checks every RMA argument, then calls the backend with its own buffers. */
final class CheckedRma implements Rma {
    private final CheckedCommunicator c;
    private final Rma raw;
    /** Feeds {@link RmaBatchEvent}; touched only while that JFR event is enabled. */
    private final RmaTally tally = new RmaTally();

    CheckedRma(CheckedCommunicator c, Rma raw) {
        this.c = c;
        this.raw = raw;
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        SymmetricBuffer d = remote("put dst", dst, dstOffset, bytes, pe);
        raw.put(d, dstOffset, local("put src", src, srcOffset, bytes), srcOffset, bytes, pe);
        if (RmaTally.on()) tally.put(bytes, pe);
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        SymmetricBuffer s = remote("get src", src, srcOffset, bytes, pe);
        raw.get(local("get dst", dst, dstOffset, bytes), dstOffset, s, srcOffset, bytes, pe);
        if (RmaTally.on()) tally.get(bytes, pe);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        SymmetricBuffer d = remote("putNbi dst", dst, dstOffset, bytes, pe);
        raw.putNbi(d, dstOffset, local("putNbi src", src, srcOffset, bytes), srcOffset, bytes, pe);
        if (RmaTally.on()) tally.put(bytes, pe);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        SymmetricBuffer s = remote("getNbi src", src, srcOffset, bytes, pe);
        raw.getNbi(local("getNbi dst", dst, dstOffset, bytes), dstOffset, s, srcOffset, bytes, pe);
        if (RmaTally.on()) tally.get(bytes, pe);
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
        SymmetricBuffer d = remote("putSignal dst", dst, dstOffset, bytes, pe);
        Memory s = local("putSignal src", src, srcOffset, bytes);
        SymmetricBuffer sig = word("putSignal signal", signal, signalOffset, pe);
        raw.putSignal(d, dstOffset, s, srcOffset, bytes, sig, signalOffset, value, Checks.notNull("signal op", op), pe);
        if (RmaTally.on()) tally.putSignal(bytes, pe);
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
        SymmetricBuffer d = remote("putSignalNbi dst", dst, dstOffset, bytes, pe);
        Memory s = local("putSignalNbi src", src, srcOffset, bytes);
        SymmetricBuffer sig = word("putSignalNbi signal", signal, signalOffset, pe);
        raw.putSignalNbi(
                d, dstOffset, s, srcOffset, bytes, sig, signalOffset, value, Checks.notNull("signal op", op), pe);
        if (RmaTally.on()) tally.putSignal(bytes, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        SymmetricBuffer sig = word("signalWaitUntil", signal, signalOffset, c.rank());
        return raw.signalWaitUntil(sig, signalOffset, Checks.notNull("comparison", cmp), value);
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return raw.signalFetch(word("signalFetch", signal, signalOffset, c.rank()), signalOffset);
    }

    @Override
    public void quiet() {
        c.ensureOpen();
        if (!RmaTally.on()) {
            raw.quiet();
            return;
        }
        RmaBatchEvent e = new RmaBatchEvent();
        e.begin();
        raw.quiet();
        e.end();
        tally.quiet();
        if (e.shouldCommit()) { // false when throttled: the counts carry over to the next recorded batch
            tally.drainInto(e, System.nanoTime());
            e.rank = c.rank();
            e.commit();
        }
    }

    @Override
    public void fence() {
        c.ensureOpen();
        raw.fence();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        SymmetricBuffer b = word("atomicFetch", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        return raw.atomicFetch(b, offset, pe);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        SymmetricBuffer b = word("atomicSet", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        raw.atomicSet(b, offset, value, pe);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        SymmetricBuffer b = word("atomicFetchAdd", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        return raw.atomicFetchAdd(b, offset, delta, pe);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        SymmetricBuffer b = word("atomicAdd", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        raw.atomicAdd(b, offset, delta, pe);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        SymmetricBuffer b = word("atomicCompareSwap", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        return raw.atomicCompareSwap(b, offset, expected, desired, pe);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        SymmetricBuffer b = word("atomicSwap", buf, offset, pe);
        if (RmaTally.on()) tally.atomic(pe);
        return raw.atomicSwap(b, offset, value, pe);
    }

    @Override
    public Rma on(Stream stream) {
        c.ensureOpen();
        Checks.notNull("stream", stream);
        if (!stream.isOpen())
            throw new IllegalStateException("stream 0x" + Long.toHexString(stream.handle()) + " is closed");
        return new CheckedRma(c, raw.on(stream));
    }

    /** Remote side: our open buffer, a valid PE, the range inside the buffer. */
    private SymmetricBuffer remote(String what, SymmetricBuffer buf, long offset, long bytes, int pe) {
        SymmetricBuffer b = c.unwrap(what, buf);
        Checks.pe(pe, c.size());
        Checks.range(what, offset, bytes, b.byteSize());
        return b;
    }

    /** A 64-bit word in one of our open buffers on a valid PE. */
    private SymmetricBuffer word(String what, SymmetricBuffer buf, long offset, int pe) {
        SymmetricBuffer b = c.unwrap(what, buf);
        Checks.pe(pe, c.size());
        Checks.word(what, offset, b.byteSize());
        return b;
    }

    /** Local side: memory of a kind the backend accepts, the range inside it. */
    private Memory local(String what, Memory mem, long offset, long bytes) {
        Memory m = c.unwrapLocal(what, mem);
        Checks.range(what, offset, bytes, m.byteSize());
        return m;
    }
}
