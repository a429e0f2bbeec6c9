package dev.unicomm.conformance.broken;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * An RMA that takes puts (and put-with-signals) into a queue and delivers them later, always in issue
 * order, so fence's ordering holds. Who drains the queue is the planted fault's choice: a quiet that
 * drains it is correct; a background thread that drains it while quiet returns at once is "quiet only orders".
 */
class DeferredPuts extends ForwardingRma {
    private final Queue<SignalPut> queue = new ArrayDeque<>();

    DeferredPuts(Rma raw) {
        super(raw);
    }

    private void defer(SignalPut call) {
        SignalPut copied = call.withSourceCopied(); // copy now: the source is reusable when put returns
        synchronized (this) {
            queue.add(copied);
            notifyAll();
        }
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        defer(SignalPut.put(dst, dstOffset, src, srcOffset, bytes, pe));
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        defer(SignalPut.put(dst, dstOffset, src, srcOffset, bytes, pe));
    }

    @Override
    protected void putSignal(SignalPut call, boolean nbi) {
        defer(call);
    }

    @Override
    public void fence() {
        // delivery is in issue order already
    }

    /** Delivers the oldest queued put; false when the queue is empty. */
    final boolean deliverOne() {
        SignalPut p;
        synchronized (this) {
            p = queue.poll();
        }
        if (p == null) return false;
        try {
            p.issueOn(raw, false);
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
