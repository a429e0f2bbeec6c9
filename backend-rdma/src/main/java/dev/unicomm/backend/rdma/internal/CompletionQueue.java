package dev.unicomm.backend.rdma.internal;

/** A completion queue, optionally with a completion channel for event-driven waiting. */
public final class CompletionQueue implements AutoCloseable {
    /** Longs per completion in {@link #poll}'s buffer (see {@link WorkCompletions}). */
    public static final int WC_LONGS = 8;

    private final long handle;
    private final boolean events;
    private boolean open = true;

    public CompletionQueue(DeviceContext dev, int entries, boolean events) {
        this.handle = Verbs.checkHandle(
                VerbsShim.ucv_cq_create(dev.handle(), entries, events ? 1 : 0),
                "ibv_create_cq(" + entries + " entries)");
        this.events = events;
    }

    long handle() {
        return handle;
    }

    /** Polls up to {@code max} completions into {@code out} ({@link #WC_LONGS} longs each); returns the count. */
    public int poll(long[] out, int max) {
        return Verbs.check(VerbsShim.ucv_cq_poll(handle, max, out), "ibv_poll_cq");
    }

    /** Requests an event for the next completion (event mode only). */
    public void arm() {
        Verbs.check(VerbsShim.ucv_cq_arm(handle), "ibv_req_notify_cq");
    }

    /** Waits up to {@code millis} for a completion event; true if one came. */
    public boolean waitEvent(int millis) {
        if (!events) throw new IllegalStateException("this completion queue was created without events");
        return Verbs.check(VerbsShim.ucv_cq_wait(handle, millis), "ibv_get_cq_event") > 0;
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        VerbsShim.ucv_cq_destroy(handle);
    }
}
