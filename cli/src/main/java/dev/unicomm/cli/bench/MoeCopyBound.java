package dev.unicomm.cli.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The copy bound of {@code unicomm bench moe}: the bytes a rank receives, copied from each peer's
 * symmetric memory into private memory as plain copies (host {@code MemorySegment} copies, or
 * device-to-device copies on a GPU backend), every rank at once. {@link #time} starts all ranks
 * together (a barrier) and times only this rank's copies: no synchronisation is charged to the
 * bound, so it is an upper limit for any operation that moves the same bytes (an operation that
 * beats it on a quiet machine would show that the bound is not the fastest copy). Collective:
 * every rank creates it and calls {@link #time}.
 */
final class MoeCopyBound implements AutoCloseable {
    private final Communicator comm;
    private final SymmetricBuffer src;
    private final DeviceRuntime device;
    private final DeviceBuffer deviceDst;
    private final MemorySegment hostDst;

    /** {@code x}: this rank's tokens (the source bytes); {@code maxBytes}: the most one run copies. */
    MoeCopyBound(Communicator comm, Arena arena, Tensor x, boolean onDevice, long maxBytes) {
        this.comm = comm;
        this.src = comm.heap().allocate(x.byteSize(), 4096);
        this.device = onDevice ? comm.device() : null;
        if (onDevice) {
            device.copy(src, 0, x.memory(), 0, x.byteSize());
            deviceDst = device.allocate(Math.max(16, maxBytes));
            hostDst = null;
        } else {
            src.segment().copyFrom(x.segment());
            hostDst = arena.allocate(Math.max(1, maxBytes), 4096).fill((byte) 0);
            deviceDst = null;
        }
        comm.barrier();
    }

    /**
     * Nanoseconds this rank takes to copy {@code fromRank[s]} bytes from each peer s (wrapping around
     * the source's size), all ranks starting together; a barrier after (untimed) keeps iterations apart.
     */
    long time(long[] fromRank) {
        comm.barrier();
        long t0 = System.nanoTime();
        long at = 0, size = src.byteSize();
        for (int s = 0; s < fromRank.length; s++) {
            Memory peer = src.peerMemory(s).orElse(null);
            for (long left = fromRank[s]; left > 0; ) {
                long chunk = Math.min(left, size);
                if (device != null) {
                    if (peer == null) throw new IllegalStateException("rank " + s + "'s symmetric memory is not mapped into this process");
                    device.copy(deviceDst, at, peer, 0, chunk);
                }
                else if (peer != null) MemorySegment.copy(peer.segment(), 0, hostDst, at, chunk);
                else comm.rma().get(Memory.of(hostDst), at, src, 0, chunk, s);
                at += chunk;
                left -= chunk;
            }
        }
        long ns = System.nanoTime() - t0;
        comm.barrier();
        return ns;
    }

    @Override public void close() {
        if (deviceDst != null) deviceDst.close();
        src.close();
    }
}
