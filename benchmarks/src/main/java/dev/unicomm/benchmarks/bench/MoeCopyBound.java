package dev.unicomm.benchmarks.bench;

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
 * device-to-device copies on a GPU backend), every rank at once. On the host, {@link #time} starts
 * all ranks together (a barrier) and measures from this rank's start to the moment the last rank
 * finished its copies (every rank's end stamp, {@code System.nanoTime}, a machine-wide clock on
 * one host, is exchanged untimed): the copying of the whole job, with no synchronisation protocol
 * charged, so an upper limit for any collective operation that moves the same bytes. On a device
 * the copies are followed by one barrier inside the timing, as before. Collective: every rank
 * creates it and calls {@link #time}.
 */
final class MoeCopyBound implements AutoCloseable {
    private final Communicator comm;
    private final SymmetricBuffer src;
    private final DeviceRuntime device;
    private final DeviceBuffer deviceDst;
    private final MemorySegment hostDst;
    private final SymmetricBuffer stamps; // host: every rank's end time of the latest run, at 8 * rank

    /** {@code x}: this rank's tokens (the source bytes); {@code maxBytes}: the most one run copies. */
    MoeCopyBound(Communicator comm, Arena arena, Tensor x, boolean onDevice, long maxBytes) {
        this.comm = comm;
        this.src = comm.heap().allocate(x.byteSize(), 4096);
        this.stamps = onDevice ? null : comm.heap().allocate(8L * comm.size());
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
     * Nanoseconds from this rank's start to the end of the last rank's copies of {@code fromRank[s]}
     * bytes from each peer s (wrapping around the source's size), all ranks starting together.
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
        if (device != null) {
            comm.barrier();
            return System.nanoTime() - t0;
        }
        long end = System.nanoTime();
        for (int pe = 0; pe < comm.size(); pe++) comm.rma().atomicSet(stamps, 8L * comm.rank(), end, pe);
        comm.rma().quiet();
        comm.barrier();
        long last = end;
        for (int pe = 0; pe < comm.size(); pe++) last = Math.max(last, stamps.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * pe));
        return last - t0;
    }

    @Override public void close() {
        if (deviceDst != null) deviceDst.close();
        if (stamps != null) stamps.close();
        src.close();
    }
}
