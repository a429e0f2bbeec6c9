package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.CommTimeoutException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One UCP context with one worker, created {@code UCS_THREAD_MODE_MULTI} so that any thread may call
 * into it, plus the progress thread that keeps serving peers while this PE's own threads compute. Over
 * transports without hardware RMA (tcp) a peer's put, get or atomic completes only when the
 * <em>target's</em> worker progresses; the thread makes that independent of what the application does.
 *
 * <p>Progress model: the thread calls {@code ucp_worker_progress} while it finds work, spins
 * {@code spinRounds} more empty rounds, then arms the worker ({@code ucp_worker_arm}) and sleeps in
 * {@code poll(2)} on the worker's event fd for at most {@code pollMillis} (wakes at once on incoming
 * traffic or on {@code ucp_worker_signal} at close); after a quiet timeout it sleeps again without
 * spinning. The bound catches data a progress call left half-read (edge-triggered event sets). Threads waiting for their own requests progress
 * the worker themselves as well (the fast path: no hand-off), and while one does, or one issued an operation
 * within the last {@link #HANDBACK_NANOS}, the progress thread steps aside (re-checking every
 * {@link #CALLER_WAIT_PARK_NANOS} while a caller waits) ({@link #callerProgress}): two threads
 * progressing one {@code THREAD_MODE_MULTI} worker take turns on its lock, and on a host with few cores the
 * second one takes the CPU the peer's or our own sender needs (measured: put bandwidth between two bed hosts 2x
 * lower with both progressing; a stream of {@code putNbi} with the progress thread spinning beside it ~0.6x
 * {@code ucx_perftest}'s, which never runs a second thread).
 */
final class UcxWorker implements AutoCloseable {
    private static final int WAIT_SPIN = 2_000;
    /** How soon the progress thread takes the worker back after the last caller issued an operation. */
    private static final long HANDBACK_NANOS = 50_000;
    /**
     * How long the progress thread stays away while a caller is inside a wait (and progresses the worker itself).
     * Longer than {@link #HANDBACK_NANOS}: on a host with few cores each wake-up takes a core from a spinning caller
     * (2026-12-06, two bed hosts on 2 cores, 8-byte put ping-pong beside ucx_perftest: p50 0.88-1.61x and p90
     * 30-46 us with 50 us, 0.93-1.23x and p90 21-35 us with 0.5 ms). The cost: a peer's request that arrives
     * just after this PE's caller left its wait may be served up to this much later.
     */
    private static final long CALLER_WAIT_PARK_NANOS = 500_000;

    private static final long WAIT_PARK_NANOS = 20_000;

    final Ucp ucp;
    final MemorySegment context;
    final MemorySegment worker;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollFd;
    private final int spinRounds;
    private final int pollMillis;
    private final Thread progress;
    private volatile boolean running = true;
    private volatile Throwable progressFailure;
    /** Threads now progressing the worker in a wait of their own ({@link #enterWait}). */
    private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();
    /** How many times callers entered the worker ({@link #enterWait}): while it moves, a caller is still at work on it. */
    private final java.util.concurrent.atomic.AtomicLong visits = new java.util.concurrent.atomic.AtomicLong();
    /** Whether the progress thread steps aside while a caller waits ({@code ucx.progress_while_waiting=caller}). */
    private final boolean callerProgress;

    private volatile java.util.function.BiConsumer<Integer, CommTimeoutException> peerTimedOut = (pe, e) -> {};
    private final java.util.Queue<Runnable> tasks = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private UcxWorker(
            Ucp ucp,
            MemorySegment context,
            MemorySegment worker,
            int efd,
            int spinRounds,
            int pollMillis,
            boolean callerProgress,
            String name) {
        this.callerProgress = callerProgress;
        this.ucp = ucp;
        this.context = context;
        this.worker = worker;
        this.spinRounds = spinRounds;
        this.pollMillis = pollMillis;
        this.pollFd = arena.allocate(8, 8); // struct pollfd { int fd; short events; short revents; }
        pollFd.set(ValueLayout.JAVA_INT, 0, efd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, (short) 1); // POLLIN
        this.progress = Thread.ofPlatform().daemon().name(name).unstarted(this::serve);
        progress.start();
    }

    /**
     * Creates the context (features RMA, AMO64, TAG for the barrier's messages, WAKEUP; {@code UCX_*} variables read by
     * {@code ucp_config_read}) and the worker, and starts the progress thread.
     */
    static UcxWorker open(String library, String name, int spinRounds, int pollMillis, boolean callerProgress) {
        return open(
                library,
                name,
                spinRounds,
                pollMillis,
                callerProgress,
                UcpAbi.FEATURE_RMA | UcpAbi.FEATURE_AMO64 | UcpAbi.FEATURE_TAG,
                java.util.Map.of());
    }

    /**
     * As {@link #open(String, String, int, int, boolean)} with other UCP features ({@code FEATURE_WAKEUP} is always added: the
     * progress thread sleeps on the event fd) and UCX settings applied over the environment's ({@code ucp_config_modify}, e.g.
     * {@code NET_DEVICES}).
     */
    static UcxWorker open(
            String library,
            String name,
            int spinRounds,
            int pollMillis,
            boolean callerProgress,
            long features,
            java.util.Map<String, String> settings) {
        Ucp ucp = Ucp.get(library);
        MemorySegment context = MemorySegment.NULL, worker = MemorySegment.NULL;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            Ucx.check(ucp, ucp.configRead(out), "ucp_config_read");
            MemorySegment config = out.get(ValueLayout.ADDRESS, 0);
            for (var e : settings.entrySet()) {
                byte m = ucp.configModify(config, a.allocateFrom(e.getKey()), a.allocateFrom(e.getValue()));
                if (m != UcpAbi.OK) {
                    ucp.configRelease(config);
                    throw new IllegalArgumentException(
                            "UCX rejected setting " + e.getKey() + "=" + e.getValue() + ": " + ucp.statusString(m));
                }
            }
            MemorySegment params = a.allocate(UcpAbi.PARAMS_SIZE, 8);
            params.set(
                    ValueLayout.JAVA_LONG,
                    UcpAbi.PARAMS_FIELD_MASK,
                    UcpAbi.PARAM_FIELD_FEATURES | UcpAbi.PARAM_FIELD_NAME);
            params.set(ValueLayout.JAVA_LONG, UcpAbi.PARAMS_FEATURES, features | UcpAbi.FEATURE_WAKEUP);
            params.set(ValueLayout.ADDRESS, UcpAbi.PARAMS_NAME, a.allocateFrom(name));
            byte s = ucp.init(params, config, out);
            ucp.configRelease(config);
            Ucx.check(ucp, s, "ucp_init");
            context = out.get(ValueLayout.ADDRESS, 0);

            MemorySegment wp = a.allocate(UcpAbi.WORKER_PARAMS_SIZE, 8);
            wp.set(ValueLayout.JAVA_LONG, UcpAbi.WORKER_PARAMS_FIELD_MASK, UcpAbi.WORKER_PARAM_FIELD_THREAD_MODE);
            wp.set(ValueLayout.JAVA_INT, UcpAbi.WORKER_PARAMS_THREAD_MODE, UcpAbi.THREAD_MODE_MULTI);
            Ucx.check(ucp, ucp.workerCreate(context, wp, out), "ucp_worker_create");
            worker = out.get(ValueLayout.ADDRESS, 0);

            MemorySegment fd = a.allocate(ValueLayout.JAVA_INT);
            Ucx.check(ucp, ucp.workerGetEfd(worker, fd), "ucp_worker_get_efd");
            return new UcxWorker(
                    ucp,
                    context,
                    worker,
                    fd.get(ValueLayout.JAVA_INT, 0),
                    spinRounds,
                    pollMillis,
                    callerProgress,
                    name);
        } catch (RuntimeException | Error e) {
            if (!worker.equals(MemorySegment.NULL)) ucp.workerDestroy(worker);
            if (!context.equals(MemorySegment.NULL)) ucp.cleanup(context);
            throw e;
        }
    }

    /** This worker's address, as bytes for the rendezvous store. */
    byte[] address() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment addr = a.allocate(ValueLayout.ADDRESS), len = a.allocate(ValueLayout.JAVA_LONG);
            Ucx.check(ucp, ucp.workerGetAddress(worker, addr, len), "ucp_worker_get_address");
            MemorySegment p = addr.get(ValueLayout.ADDRESS, 0);
            byte[] bytes = p.reinterpret(len.get(ValueLayout.JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
            ucp.workerReleaseAddress(worker, p);
            return bytes;
        }
    }

    /** The progress thread's loop: bounded by {@link #close()}, which clears {@code running} and signals the worker. */
    private void serve() {
        int idle = 0;
        long seen = 0;
        try {
            while (running) {
                for (Runnable t; (t = tasks.poll()) != null; ) t.run();
                long v = visits.get();
                if (callerProgress && (waiting.get() > 0 || v != seen)) {
                    // A caller progresses the worker in its wait, or is issuing operations (a stream of putNbi, whose
                    // calls progress it too): stay off the worker's lock while one does, re-checking every
                    // HANDBACK_NANOS (CALLER_WAIT_PARK_NANOS while one waits). Not woken when the caller leaves: a
                    // caller that waits again a few microseconds
                    // later (a ping-pong, the next putNbi) would find this thread on the lock.
                    seen = v;
                    LockSupport.parkNanos(waiting.get() > 0 ? CALLER_WAIT_PARK_NANOS : HANDBACK_NANOS);
                    idle = 0;
                    continue;
                }
                if (ucp.progress(worker) != 0) {
                    idle = 0;
                    continue;
                }
                if (++idle < spinRounds) {
                    Thread.onSpinWait();
                    continue;
                }
                byte armed = ucp.workerArm(worker);
                if (armed == UcpAbi.ERR_BUSY) continue; // events arrived meanwhile: progress them first
                if (armed != UcpAbi.OK) { // no wake-up support on some transport: sleep briefly
                    LockSupport.parkNanos(Math.max(1, pollMillis) * 1_000_000L);
                    continue;
                }
                // Bounded: also catches data a progress call left half-read (edge-triggered event sets) soon after
                // traffic.
                // A quiet timeout goes straight back to sleep: spinning after each one would cost ~10% of a core.
                idle = ucp.poll(pollFd, 1, pollMillis) > 0 ? 0 : spinRounds;
            }
        } catch (Throwable t) {
            progressFailure = t;
        }
    }

    /**
     * Waits for a request returned by an {@code *_nbx} call: progresses the worker from this thread,
     * checks the job's health and the deadline; frees the request.
     *
     * @param call    the UCX function, for messages
     * @param pe      the target PE, or -1 (flush)
     * @param health  throws {@code CommAbortedException} when the job has failed
     */
    void await(MemorySegment statusPtr, String call, int pe, Duration timeout, Runnable health) {
        if (statusPtr.address() == 0) return; // completed in place
        awaitUntil(statusPtr, call, pe, pe >= 0, false, timeout, System.nanoTime() + timeout.toNanos(), health);
    }

    /**
     * As {@link #await}, until an absolute {@code deadline} ({@link System#nanoTime}).
     *
     * @param namePeer whether a timeout reports {@code pe} to {@link #onPeerTimeout} (the job fails naming it)
     * @param receive  whether the request is a receive: given up on (timeout, failed health), it is cancelled before it
     *                 is freed (it would otherwise stay posted and match a later message); messages say "from PE"
     * @param timeout  the job timeout, for the message
     */
    void awaitUntil(
            MemorySegment statusPtr,
            String call,
            int pe,
            boolean namePeer,
            boolean receive,
            Duration timeout,
            long deadline,
            Runnable health) {
        long p = statusPtr.address();
        if (p == 0) return; // completed in place
        if (UcpAbi.isError(p)) throw Ucx.failure(ucp, UcpAbi.status(p), call, pe, health);
        enterWait();
        try {
            for (long i = 0, idle = 0; ; i++) {
                byte s = ucp.requestStatus(statusPtr);
                if (s != UcpAbi.INPROGRESS) {
                    ucp.requestFree(statusPtr);
                    if (s != UcpAbi.OK) throw Ucx.failure(ucp, s, call, pe, health);
                    return;
                }
                // Sleep only after WAIT_SPIN empty rounds in a row: a long flush that still moves data keeps the pipe
                // full.
                if (ucp.progress(worker) != 0) idle = 0;
                else if (++idle > WAIT_SPIN) LockSupport.parkNanos(WAIT_PARK_NANOS);
                if ((i & 63) == 63) {
                    try {
                        health.run();
                        if (System.nanoTime() - deadline > 0) {
                            CommTimeoutException e = new CommTimeoutException(
                                    call + (pe < 0 ? "" : (receive ? " from PE " : " to PE ") + pe), timeout);
                            if (namePeer) peerTimedOut.accept(pe, e);
                            throw e;
                        }
                    } catch (RuntimeException e) {
                        // A receive stays posted until cancelled (completes it as canceled unless data is landing).
                        if (receive) ucp.requestCancel(worker, statusPtr);
                        ucp.requestFree(statusPtr); // UCX releases it when it completes or is cancelled
                        throw e;
                    }
                }
            }
        } finally {
            exitWait();
        }
    }

    /** Marks the calling thread as progressing the worker in a wait: the progress thread steps aside until {@link #exitWait}. */
    void enterWait() {
        waiting.incrementAndGet();
        visits.incrementAndGet();
    }

    /** Ends {@link #enterWait}; the progress thread takes the worker back within {@link #CALLER_WAIT_PARK_NANOS} + {@link #HANDBACK_NANOS} of the last waiter leaving. */
    void exitWait() {
        waiting.decrementAndGet();
    }

    /** The transports and memory domains of this worker's context ({@code ucp_context_print_info}'s text). */
    String contextInfo() {
        return ucp.contextInfo(context);
    }

    /**
     * Runs {@code task} on the progress thread between two progress calls. Endpoints, whose completion
     * callbacks also run only there, cancel and close their requests this way: nothing frees a request
     * while another thread still uses it.
     */
    void onProgressThread(Runnable task) {
        tasks.add(task);
        wake();
    }

    /** Wakes the progress thread from its sleep ({@code ucp_worker_signal}): new work was posted. */
    void wake() {
        ucp.workerSignal(worker);
    }

    /** What to do when a request to a PE times out (the communicator tells the job, naming the PE); before the throw. */
    void onPeerTimeout(java.util.function.BiConsumer<Integer, CommTimeoutException> action) {
        peerTimedOut = action;
    }

    /** Progresses once from the calling thread (waiters that poll local memory call this, between {@link #enterWait} and {@link #exitWait}). */
    int progressOnce() {
        return ucp.progress(worker);
    }

    /** Whether the progress thread died; its failure, else null. */
    Throwable progressFailure() {
        return progressFailure;
    }

    /** Stops the progress thread (bounded join), destroys the worker and the context. */
    @Override
    public void close() {
        running = false;
        ucp.workerSignal(worker);
        try {
            progress.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (progress.isAlive())
            throw new IllegalStateException("UCX progress thread did not stop within 10 s; worker not destroyed");
        ucp.workerDestroy(worker);
        ucp.cleanup(context);
        arena.close();
    }
}
