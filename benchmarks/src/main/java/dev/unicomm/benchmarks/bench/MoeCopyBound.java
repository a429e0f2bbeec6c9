package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
    private final RankWords stamps; // host: every rank's end time of the latest run
    private final SymmetricBuffer gatherSrc; // host: what a combine bound reads (src, or a larger buffer)

    /**
     * {@code x}: this rank's tokens (the source bytes); {@code maxBytes}: the most one run copies;
     * {@code gatherBytes}: the most any rank's combine reads from one peer, the same on every rank
     * (the combine bound reads that many distinct bytes, as a combine does from a peer's receive area,
     * not {@code x}'s bytes again from cache).
     */
    MoeCopyBound(Communicator comm, Arena arena, Tensor x, boolean onDevice, long maxBytes, long gatherBytes) {
        this.comm = comm;
        this.src = comm.heap().allocate(x.byteSize(), 4096);
        this.stamps = onDevice ? null : new RankWords(comm);
        this.device = onDevice ? comm.device() : null;
        if (onDevice) {
            device.copy(src, 0, x.memory(), 0, x.byteSize());
            deviceDst = device.allocate(Math.max(16, maxBytes));
            hostDst = null;
            gatherSrc = null;
        } else {
            src.segment().copyFrom(x.segment());
            gatherSrc = gatherBytes > x.byteSize() ? comm.heap().allocate(gatherBytes, 4096) : src;
            if (gatherSrc != src) gatherSrc.segment().fill((byte) 0x3c);
            warmReads(src.segment());
            hostDst = arena.allocate(Math.max(Math.max(1, maxBytes), x.byteSize()), 4096).fill((byte) 0); // also a combine's output (x's size)
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
        copyFromPeers(fromRank);
        if (device != null) {
            comm.barrier();
            return System.nanoTime() - t0;
        }
        return untilLastRank(t0);
    }

    /**
     * The bound of a combine on the host: nanoseconds, as {@link #time}, for every rank at once to read
     * {@code fromRank[s]} bytes of each peer s (one pass of vector loads, folded so that none is
     * skipped) and then write {@code outBytes} of private memory (a fill). A combine reads every
     * received row but writes one row per token, so a copy of the received bytes, which writes them
     * all, is not an upper limit for it. A combine has no closing barrier, so the bench times it the
     * same way ({@link #untilLastRank}): with its own end instead, the ranks that ran first on a host
     * with fewer cores than ranks finished before the others had started. {@code outBytes} is at most {@code x}'s size (a combine's
     * output has {@code x}'s shape). On a device this is {@link #time} (the GPU has its roofline).
     */
    long timeGather(long[] fromRank, long outBytes) {
        if (device != null) return time(fromRank);
        comm.barrier();
        long t0 = System.nanoTime();
        long size = gatherSrc.byteSize(), fold = 0;
        for (int s = 0; s < fromRank.length; s++) {
            Memory peer = gatherSrc.peerMemory(s).orElse(null);
            for (long left = fromRank[s]; left > 0; ) {
                long chunk = Math.min(Math.min(left, size), hostDst.byteSize());
                if (peer != null) fold ^= readAll(peer.segment(), chunk);
                else comm.rma().get(Memory.of(hostDst), 0, gatherSrc, 0, chunk, s); // no mapping: the transfer is the read
                left -= chunk;
            }
        }
        hostDst.asSlice(0, outBytes).fill((byte) fold);
        return untilLastRank(t0);
    }

    /**
     * Runs the read pass over {@code seg} until it is as fast as it gets (no pass 3 % faster than the
     * best for 20 passes, at least 0.3 s, at most 10 s): until C2 has compiled it, its vector loads
     * run as boxed Java code, and a bound measured then would be slower than the combine it bounds
     * (seen with JFR on a loaded 2-core host).
     */
    private static void warmReads(MemorySegment seg) {
        long start = System.nanoTime(), best = Long.MAX_VALUE, fold = 0;
        for (int sinceBest = 0; ; ) {
            long t0 = System.nanoTime();
            fold ^= readAll(seg, seg.byteSize());
            long now = System.nanoTime(), took = now - t0;
            if (took < best * 0.97) {
                best = took;
                sinceBest = 0;
            } else {
                sinceBest++;
            }
            if (now - start > 10_000_000_000L || (sinceBest >= 20 && now - start > 300_000_000L)) break;
        }
        if (fold == 42) System.out.print(""); // keeps the reads observable
    }

    /** Whether the Vector API is there (the bench's workers start with it). */
    private static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /** Every byte of {@code seg[0, n)} read once, folded into one word (so the JIT cannot skip a load). */
    private static long readAll(MemorySegment seg, long n) {
        return VECTOR ? VectorRead.readAll(seg, n) : readScalar(seg, 0, n);
    }

    /** {@link #readAll} of {@code seg[from, n)} with 8-byte loads (four independent folds) and byte loads for the tail. */
    static long readScalar(MemorySegment seg, long from, long n) {
        long a = 0, b = 0, c = 0, d = 0, i = from;
        for (; i + 32 <= n; i += 32) {
            a ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
            b ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 8);
            c ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 16);
            d ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 24);
        }
        for (; i < n; i++) a ^= seg.get(ValueLayout.JAVA_BYTE, i);
        return a ^ b ^ c ^ d;
    }

    /**
     * Copies {@code fromRank[s]} bytes from each peer s into private memory (device or host), wrapping
     * around the destination when the total exceeds it (a combine's reads can exceed the dispatch's
     * received bytes that size it; what lands there is never read).
     */
    private void copyFromPeers(long[] fromRank) {
        long at = 0, size = src.byteSize(), room = device != null ? deviceDst.byteSize() : hostDst.byteSize();
        for (int s = 0; s < fromRank.length; s++) {
            Memory peer = src.peerMemory(s).orElse(null);
            for (long left = fromRank[s]; left > 0; ) {
                long chunk = Math.min(Math.min(left, size), room);
                if (at + chunk > room) at = 0;
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
    }

    /**
     * Host only, collective: exchanges every rank's end stamp, taken now ({@code System.nanoTime}, one
     * clock on one host), untimed, and returns the time from this rank's {@code t0} to the latest. On a
     * device (no stamps) this rank's own time.
     */
    long untilLastRank(long t0) {
        long end = System.nanoTime();
        if (stamps == null) return end - t0;
        long last = end;
        for (long e : stamps.exchange(end)) last = Math.max(last, e);
        return last - t0;
    }

    @Override public void close() {
        if (deviceDst != null) deviceDst.close();
        if (stamps != null) stamps.close();
        if (gatherSrc != null && gatherSrc != src) gatherSrc.close();
        src.close();
    }
}
