package dev.unicomm.backend.nvshmem.internal;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What host-issued operations (blocking RMA, atomics, collectives, copies) run through: the
 * communicator's internal stream, a second stream for polling a word, and one pinned host area:
 * a header (the 8-byte result slot at 0; from 64 on, what the call agreement and alltoallv's offset
 * exchange stage) and then the bounce buffer, paired with a device staging buffer of the same size. Host
 * data moves bounce buffer <-> device staging buffer <-> NVSHMEM, so NVSHMEM only ever sees device
 * memory. Used under the communicator's lock.
 */
final class HostStaging {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.backend.nvshmem");
    /** Bytes of the pinned area before the bounce buffer: result slot, agreement staging. */
    private static final long PINNED_HEADER_MIN = 4096;

    /** The internal stream: host-issued operations run on it in issue order. */
    final long ctrl;
    /** Reads a word for the host (signal polling) without queueing behind ctrl's work. */
    final long poll;

    final long pinned;
    final MemorySegment pinnedSeg;
    /** Pinned bounce buffer ({@code bounceBytes}, after the header). */
    final long bounce;
    /** Device buffer as large as the bounce buffer: host data is staged here before NVSHMEM moves it. */
    final long staging;

    final long bounceBytes;

    HostStaging(int size, long bounceBytes) {
        this.bounceBytes = bounceBytes;
        this.ctrl = NvOps.streamCreate();
        this.poll = NvOps.streamCreate();
        long header = Math.max(PINNED_HEADER_MIN, (256 + 32L * size + 4095) & ~4095L);
        this.pinned = NvOps.pinnedAlloc(header + bounceBytes);
        this.pinnedSeg = MemorySegment.ofAddress(pinned).reinterpret(header + bounceBytes);
        this.bounce = pinned + header;
        this.staging = NvOps.devAlloc(bounceBytes);
        try {
            // Registered so that remote transports (IB) may use it as a local buffer; P2P does not need it.
            NvOps.registerHost(pinned, header + bounceBytes);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.DEBUG,
                    "nvshmemx_buffer_register of the bounce buffer failed (only remote transports need it): {0}",
                    e.getMessage());
        }
    }

    /** The bounce buffer as a segment. */
    MemorySegment bounceSegment() {
        return pinnedSeg.asSlice(bounce - pinned, bounceBytes);
    }

    /** The 8-byte result slot in pinned memory. */
    long slot() {
        return pinned;
    }

    long readSlot() {
        return pinnedSeg.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Frees the pinned area and the device staging buffer. */
    void freeBuffers() {
        try {
            NvOps.unregisterHost(pinned);
        } catch (RuntimeException e) {
            // Registration is optional (see the constructor); nothing to undo then.
        }
        NvOps.pinnedFree(pinned);
        NvOps.devFree(staging);
    }

    void destroyStreams() {
        NvOps.streamDestroy(ctrl);
        NvOps.streamDestroy(poll);
    }
}
