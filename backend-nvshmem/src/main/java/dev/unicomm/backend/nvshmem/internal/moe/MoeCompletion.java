package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.NativeCallException;
import dev.unicomm.backend.nvshmem.internal.MoeHost;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * How the host learns that a MoE kernel is done: each kind of operation has a slot in pinned host
 * memory that the kernel's last block fills (error record, info ints) and then stamps with the
 * operation's sequence number; the host polls the stamp. Polling host memory sees the end within
 * a few hundred nanoseconds, where a stream query and a copy cost microseconds each. The stream
 * is still queried now and then, so a kernel fault surfaces as an exception naming the kernel.
 *
 * <p>Slots: 0 layout and normal operations, 1-2 low-latency dispatch (per generation parity),
 * 3-4 low-latency combine. Each slot also has 64 bytes of device memory: the kernels' error
 * record (written with atomics, which host memory does not take), the grid's done counter (byte
 * 48) and the release word of a grid barrier (byte 56, the normal dispatch's routing kernel).
 * Word 5 of each pinned slot is the abort word: set once the job is aborted, it ends every kernel
 * spin within microseconds instead of at the kernel's deadline (the communicator's timeout).
 */
final class MoeCompletion {
    static final int SYNC = 0, LL_DISPATCH = 1, LL_COMBINE = 3, SLOTS = 5;
    private static final VarHandle STAMP = ValueLayout.JAVA_LONG.varHandle();
    private static final long DEVICE_SLOT = 64, INFO = 64, ABORT = 40;

    private final MoeHost c;
    private final long stream, slotBytes;
    private final int experts;
    final long pinned, device;
    final MemorySegment host;
    private final long[] seq = new long[SLOTS];
    /** Elastic buffers: the kernels mark silent peers inactive themselves, so no store health check ends a wait early. */
    private final boolean elastic;
    /**
     * Called when a kernel found a peer gone (and before any other error is thrown) with the first record's words:
     * kernel, the rank first found silent and the wait's step; the host reads the device mask.
     */
    private LostListener onLost = (kernel, rank, step) -> {};

    /** What a kernel's first "peer lost" record says (the mask may name more ranks: every wait marks its own). */
    interface LostListener {
        void lost(String kernel, long rank, long step);
    }

    MoeCompletion(MoeHost c, long stream, int infoInts, long device, int experts) {
        this.c = c;
        this.experts = experts;
        this.stream = stream;
        this.slotBytes = (INFO + 4L * infoInts + 63) & -64L;
        this.pinned = NvOps.pinnedAlloc(SLOTS * slotBytes);
        this.host =
                MemorySegment.ofAddress(pinned).reinterpret(SLOTS * slotBytes).fill((byte) 0);
        this.device = device;
        this.elastic = c.settings().moeElastic();
    }

    void onLost(LostListener r) {
        this.onLost = r;
    }

    /** Device bytes the slots need (error records and done counters). */
    static long deviceBytes() {
        return SLOTS * DEVICE_SLOT;
    }

    /** Pinned address of slot {@code s} (the kernel's host_slot). */
    long slot(int s) {
        return pinned + s * slotBytes;
    }

    /** Pinned address of slot {@code s}'s info ints. */
    long info(int s) {
        return slot(s) + INFO;
    }

    /** Device error record of slot {@code s}. */
    long err(int s) {
        return device + s * DEVICE_SLOT;
    }

    /** Device done counter of slot {@code s}. */
    long gridDone(int s) {
        return device + s * DEVICE_SLOT + 48;
    }

    /** The next sequence number of slot {@code s}, for the operation about to launch. */
    long next(int s) {
        return ++seq[s];
    }

    /** Info int {@code i} of slot {@code s}, valid after {@link #await}. */
    int infoInt(int s, int i) {
        return host.get(ValueLayout.JAVA_INT, s * slotBytes + INFO + 4L * i);
    }

    /**
     * Waits until slot {@code s} carries stamp {@code stamp} (or a later one: a later operation of the
     * same slot also means this one is done), bounded by the communicator's timeout; then throws
     * what the kernel recorded, if anything.
     */
    void await(int s, long stamp, String kernel) {
        // Elastic: two of the kernels' deadlines (a routing wait, then a data wait, each may find a peer gone).
        long at = s * slotBytes,
                start = System.nanoTime(),
                limit = (elastic ? 2 : 1) * c.timeout().toNanos() + 1_000_000_000L;
        long spins = 0;
        while ((long) STAMP.getVolatile(host, at) < stamp) {
            if ((++spins & 1023) == 0) {
                boolean idle;
                try {
                    idle = NvOps.streamDone(stream);
                } catch (NativeCallException e) {
                    throw new CommException(kernel + " failed on the GPU: " + e.getMessage(), e);
                }
                if (idle && (long) STAMP.getVolatile(host, at) < stamp)
                    throw new CommException(kernel + " ended without reporting completion (stamp " + stamp + ")");
                long waited = System.nanoTime() - start;
                if (waited > limit) throw new CommTimeoutException(kernel, c.timeout());
                if (waited > 5_000_000 && !elastic) {
                    try {
                        c.checkHealthy();
                    } catch (RuntimeException e) {
                        abortKernels(); // a dead peer: our kernels stop waiting for it now, not at their deadline
                        throw e;
                    }
                    LockSupport.parkNanos(20_000);
                }
            }
            Thread.onSpinWait();
        }
        throwRecorded(s, kernel);
    }

    /**
     * Throws (once) the error record a kernel left in slot {@code s}, clearing it first, here and on
     * the device (waited for: the slot's next kernel may run on another stream).
     */
    void throwRecorded(int s, String kernel) {
        long at = s * slotBytes, code = host.get(ValueLayout.JAVA_LONG, at + 8);
        if (code == 0) return;
        long a = host.get(ValueLayout.JAVA_LONG, at + 16),
                b = host.get(ValueLayout.JAVA_LONG, at + 24),
                v = host.get(ValueLayout.JAVA_LONG, at + 32);
        host.set(ValueLayout.JAVA_LONG, at + 8, 0);
        NvOps.fillAsync(err(s), 0, 32, stream);
        if (elastic) {
            onLost.lost(kernel, a, b); // whatever the record says, the kernels may have marked peers inactive
            // A lost peer is no error: the clearing above is queued before this slot's next kernel (same stream), not
            // waited for.
            if (code == dev.unicomm.backend.nvshmem.internal.NvMoeArgs.ERR_LOST) return;
            drain("clearing a MoE error record");
        } else {
            c.await(stream, "clearing a MoE error record");
        }
        throw MoeErrors.of(code, a, b, v, kernel, experts, c.timeout());
    }

    /**
     * Waits (bounded by twice the timeout) until the buffer's stream is idle, without the store's health check,
     * which in a job that lost a rank would end every wait: elastic buffers go on without it.
     */
    void drain(String what) {
        long until = System.nanoTime() + 2 * c.timeout().toNanos();
        while (!NvOps.streamDone(stream)) {
            if (System.nanoTime() > until) throw new CommTimeoutException(what, c.timeout());
            LockSupport.parkNanos(20_000);
        }
    }

    /** Sets every slot's abort word: every running or queued MoE kernel of this buffer ends its spins. */
    void abortKernels() {
        for (int s = 0; s < SLOTS; s++) STAMP.setVolatile(host, s * slotBytes + ABORT, 1L);
    }

    void free() {
        NvOps.pinnedFree(pinned);
    }
}
