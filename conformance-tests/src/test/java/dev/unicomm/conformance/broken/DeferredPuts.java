package dev.unicomm.conformance.broken;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * An RMA that takes puts (and put-with-signals) into a queue and delivers them later, always in issue
 * order, so fence's ordering holds. Who drains the queue is the planted fault's choice: a quiet that
 * drains it is correct; a background thread that drains it while quiet returns at once is "quiet only orders".
 */
class DeferredPuts extends ForwardingRma {
    private record Pending(
            SymmetricBuffer dst,
            long dstOffset,
            MemorySegment data,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe) {}

    private final Queue<Pending> queue = new ArrayDeque<>();

    DeferredPuts(Rma raw) {
        super(raw);
    }

    private void defer(
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
        // copy now: the source is reusable when put returns
        MemorySegment copy = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        MemorySegment.copy(src.segment(), srcOffset, copy, 0, bytes);
        synchronized (this) {
            queue.add(new Pending(dst, dstOffset, copy, signal, signalOffset, value, op, pe));
            notifyAll();
        }
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        defer(dst, dstOffset, src, srcOffset, bytes, null, 0, 0, null, pe);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        defer(dst, dstOffset, src, srcOffset, bytes, null, 0, 0, null, pe);
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
        defer(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
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
        defer(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public void fence() {
        // delivery is in issue order already
    }

    /** Delivers the oldest queued put; false when the queue is empty. */
    final boolean deliverOne() {
        Pending p;
        synchronized (this) {
            p = queue.poll();
        }
        if (p == null) return false;
        try {
            if (p.signal() == null)
                raw.put(p.dst(), p.dstOffset(), Memory.of(p.data()), 0, p.data().byteSize(), p.pe());
            else
                raw.putSignal(
                        p.dst(),
                        p.dstOffset(),
                        Memory.of(p.data()),
                        0,
                        p.data().byteSize(),
                        p.signal(),
                        p.signalOffset(),
                        p.value(),
                        p.op(),
                        p.pe());
            raw.quiet();
        } catch (RuntimeException e) {
            // the target buffer was closed meanwhile: the late put is lost, which the rules detect anyway
        }
        return true;
    }

    /** Delivers everything queued so far. */
    final void deliverAll() {
        while (deliverOne()) {
            /* in order */
        }
    }

    /** Waits until something is queued (or {@code ms} pass). */
    final synchronized void awaitWork(long ms) throws InterruptedException {
        if (queue.isEmpty()) wait(ms);
    }
}
