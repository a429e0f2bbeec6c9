package dev.unicomm.backend.rdma.internal;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * The thread that drains one completion queue and hands each batch of completions to a handler.
 * Busy mode spins while work is outstanding and parks when idle; event mode sleeps on the
 * completion channel (with a short timeout so that {@link #stop()} is prompt).
 */
public final class CompletionPoller {
    /** Receives {@code count} completions in {@code wc} ({@link CompletionQueue#WC_LONGS} longs each). */
    public interface Handler {
        void completions(long[] wc, int count);

        /** Polling itself failed (the device went away); everything outstanding must fail. */
        void failed(RuntimeException e);
    }

    private static final int BATCH = 64;
    private static final int EVENT_WAIT_MS = 100;
    private static final long IDLE_PARK_NS = 20_000_000L;

    private final CompletionQueue cq;
    private final boolean busy;
    private final Handler handler;
    private final IntSupplier outstanding;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean parked;

    public CompletionPoller(String name, CompletionQueue cq, boolean busy, IntSupplier outstanding, Handler handler) {
        this.cq = cq;
        this.busy = busy;
        this.outstanding = outstanding;
        this.handler = handler;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        thread.start();
    }

    /** Called after posting work: wakes an idle busy-poller. */
    public void wake() {
        if (parked) LockSupport.unpark(thread);
    }

    private void run() {
        long[] wc = new long[BATCH * CompletionQueue.WC_LONGS];
        try {
            if (busy) busyLoop(wc);
            else eventLoop(wc);
        } catch (RuntimeException e) {
            if (running) handler.failed(e);
        }
    }

    private void busyLoop(long[] wc) {
        while (running) {
            int n = cq.poll(wc, BATCH);
            if (n > 0) {
                handler.completions(wc, n);
            } else if (outstanding.getAsInt() == 0) {
                parked = true;
                if (outstanding.getAsInt() == 0 && running) LockSupport.parkNanos(this, IDLE_PARK_NS);
                parked = false;
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void eventLoop(long[] wc) {
        while (running) {
            int n = cq.poll(wc, BATCH);
            if (n > 0) {
                handler.completions(wc, n);
                continue;
            }
            cq.arm();
            n = cq.poll(wc, BATCH); // a completion that raced the arm
            if (n > 0) {
                handler.completions(wc, n);
                continue;
            }
            cq.waitEvent(EVENT_WAIT_MS);
        }
    }

    /** Stops the thread and waits for it (bounded). */
    public void stop() {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) return;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
