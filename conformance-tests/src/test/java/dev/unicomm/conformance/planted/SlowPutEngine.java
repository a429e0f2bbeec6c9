package dev.unicomm.conformance.planted;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.ForwardingRma;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An asynchronous put engine in front of the real shm RMA, written the way a device vendor writes one:
 * puts and put-with-signals are copied into a queue and land only when the engine drains it, at a
 * completion point (quiet, fence, a barrier, an allocation), never in the background. A rule that checks
 * before a completion point it relies on therefore fails every time, not when a thread happens to be slow.
 * Atomics and gets go straight to the real RMA. Correct as it stands; each planted fault overrides one
 * hook. A late put to a freed buffer lands at its heap address, in whatever buffer is there now, as on a
 * device.
 */
class SlowPutEngine extends ForwardingRma {
    /** One queued put (a put-with-signal when {@code signal} is not null). */
    record Op(
            SymmetricBuffer dst,
            long dstOffset,
            MemorySegment data,
            int pe,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp signalOp) {}

    final Rma raw;
    private final Deque<Op> queue = new ArrayDeque<>();
    private final Object delivery = new Object(); // one deliverer at a time, so ops land in issue order
    private LiveBuffers live = new LiveBuffers();
    private volatile Thread progress;

    SlowPutEngine(Rma raw) {
        super(raw);
        this.raw = raw;
    }

    void useLiveBuffers(LiveBuffers live) {
        this.live = live;
    }

    // ---- what the planted faults override -------------------------------------------------------

    /** Queues {@code op}. */
    protected void enqueue(Op op) {
        synchronized (queue) {
            queue.add(op);
        }
    }

    /** The ops a quiet completes: all of them, in issue order. */
    protected List<Op> takeForQuiet() {
        synchronized (queue) {
            List<Op> all = new ArrayList<>(queue);
            queue.clear();
            return all;
        }
    }

    /** What the world barrier completes first (§2.5). */
    protected void completeForBarrier() {
        quiet();
    }

    /** What a team barrier completes first (§2.6): what the world barrier does; {@code world} tells the world team from split ones. */
    protected void completeForTeamBarrier(boolean world) {
        completeForBarrier();
    }

    /** What an allocation completes before it may hand out memory that a late put could still hit (§3.3). */
    protected void completeBeforeReuse() {
        quiet();
    }

    // ---- the data path ---------------------------------------------------------------------------

    private static MemorySegment copy(Memory src, long srcOffset, long bytes) {
        MemorySegment c = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]); // the source is reusable on return
        MemorySegment.copy(src.segment(), srcOffset, c, 0, bytes);
        return c;
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        enqueue(new Op(dst, dstOffset, copy(src, srcOffset, bytes), pe, null, 0, 0, null));
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        put(dst, dstOffset, src, srcOffset, bytes, pe);
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
        enqueue(new Op(dst, dstOffset, copy(src, srcOffset, bytes), pe, signal, signalOffset, value, op));
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
    public void quiet() {
        synchronized (delivery) {
            deliver(takeForQuiet());
        }
        raw.quiet();
    }

    /**
     * Also delivers in the background every {@code periodMs} (the control engine: a real engine makes
     * progress on its own; the planted faults do not, so that they fail their rules every time).
     */
    void startProgress(long periodMs) {
        progress = Thread.ofPlatform().daemon().name("slow-put-engine-progress").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(periodMs);
                    synchronized (delivery) {
                        deliver(takeForQuiet());
                    }
                }
            } catch (InterruptedException e) {
                // stopped at close
            } catch (RuntimeException e) {
                // the communicator closed under a delivery: nothing left to deliver to
            }
        });
    }

    /** Stops background delivery (at close). */
    void stopProgress() throws InterruptedException {
        Thread t = progress;
        if (t != null) {
            t.interrupt();
            t.join(5_000);
        }
    }

    /** Atomics are immediate, so fence drains the queue: puts before it stay ahead of atomics after it (§2.4). */
    @Override
    public void fence() {
        quiet();
    }

    /** Lands {@code ops} in order. */
    final void deliver(List<Op> ops) {
        for (Op op : ops) {
            SymmetricBuffer dst = live.at(op.dst(), op.dstOffset());
            if (dst == null) continue; // freed and not handed out again: nobody can see it
            long at = op.dst().offset() + op.dstOffset() - dst.offset();
            long n = Math.min(op.data().byteSize(), dst.byteSize() - at);
            if (op.signal() == null || !op.signal().isOpen()) raw.put(dst, at, Memory.of(op.data()), 0, n, op.pe());
            else
                raw.putSignal(
                        dst,
                        at,
                        Memory.of(op.data()),
                        0,
                        n,
                        op.signal(),
                        op.signalOffset(),
                        op.value(),
                        op.signalOp(),
                        op.pe());
        }
        raw.quiet();
    }
}
