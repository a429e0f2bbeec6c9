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
 * the copies are followed by one barrier inside the timing, as before. On the host a normal
 * dispatch has its own bound ({@link #timeDispatch}) and a combine its own ({@link #timeGather}).
 * Collective: every rank creates it and calls its timings together.
 */
final class MoeCopyBound implements AutoCloseable {
    private final Communicator comm;
    private final SymmetricBuffer src;
    private final DeviceRuntime device;
    private final DeviceBuffer deviceDst;
    private final MemorySegment hostDst;
    private final RankWords stamps; // host: every rank's end time of the latest run
    private final SymmetricBuffer gatherSrc; // host: what a combine bound reads (src, or a larger buffer)
    private final SymmetricBuffer pushDst; // host, normal mode: where the dispatch bound's pushed rows land
    private final MemorySegment hostX; // host: x itself, what a dispatch reads

    /**
     * {@code x}: this rank's tokens (the source bytes); {@code maxBytes}: the most one run copies;
     * {@code gatherBytes}: the most any rank's combine reads from one peer, the same on every rank
     * (the combine bound reads that many distinct bytes, as a combine does from a peer's receive area,
     * not {@code x}'s bytes again from cache); {@code pushBytes}: the most bytes any rank receives in
     * {@link #timeDispatch}, the same on every rank (host only; 0: no push bound).
     */
    MoeCopyBound(
            Communicator comm,
            Arena arena,
            Tensor x,
            boolean onDevice,
            long maxBytes,
            long gatherBytes,
            long pushBytes) {
        this.comm = comm;
        this.src = comm.heap().allocate(x.byteSize(), 4096);
        this.stamps = onDevice ? null : new RankWords(comm);
        this.device = onDevice ? comm.device() : null;
        if (onDevice) {
            device.copy(src, 0, x.memory(), 0, x.byteSize());
            deviceDst = device.allocate(Math.max(16, maxBytes));
            hostDst = null;
            gatherSrc = null;
            pushDst = null;
            hostX = null;
        } else {
            hostX = x.segment();
            src.segment().copyFrom(x.segment());
            gatherSrc = gatherBytes > x.byteSize() ? comm.heap().allocate(gatherBytes, 4096) : src;
            if (gatherSrc != src) gatherSrc.segment().fill((byte) 0x3c);
            pushDst = pushBytes > 0 ? comm.heap().allocate(pushBytes, 4096) : null;
            if (pushDst != null) pushDst.segment().fill((byte) 0); // mapped before any timing
            warmReads(src.segment(), comm.size());
            hostDst = arena.allocate(Math.max(Math.max(1, maxBytes), x.byteSize()), 4096)
                    .fill((byte) 0); // also a combine's output (x's size)
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
     * The bound of a normal dispatch on the host: nanoseconds, as {@link #time}, for every rank at once to
     * push each of its tokens to every rank that gets it ({@code dests[t]}, rank r set), as plain copies of
     * row t of {@code x} read as rows of {@code rowBytes} (x itself, as a dispatch reads it; densely, so
     * FP8-sized rows read no less contiguously than a dispatch's codes), the row read once and stored
     * to each of its ranks; on rank r this rank's rows start at row {@code firstRow[r]}. A pull of the received bytes
     * (what {@link #time} copies) reads each row once per destination, and a dispatch that pushes beat
     * it by 1.2x, so it is no upper limit for one. On a device this is {@link #time} of {@code fromRank}
     * (the GPU has its roofline).
     */
    long timeDispatch(long[] fromRank, java.util.BitSet[] dests, long[] firstRow, long rowBytes) {
        if (device != null) return time(fromRank);
        if (pushDst == null) throw new IllegalStateException("no push bound: made with pushBytes 0");
        if (dests.length * rowBytes > hostX.byteSize())
            throw new IllegalArgumentException("rows of " + rowBytes + " bytes exceed x");
        int ranks = comm.size(), me = comm.rank();
        MemorySegment xs = hostX;
        MemorySegment[] dst = new MemorySegment[ranks];
        for (int r = 0; r < ranks; r++)
            dst[r] = pushDst.peerMemory(r).map(Memory::segment).orElse(null);
        long[] next = firstRow.clone();
        boolean rma = false;
        comm.barrier();
        long t0 = System.nanoTime();
        for (int t = 0; t < dests.length; t++) {
            for (int step = 1; step <= ranks; step++) {
                int r = (me + step) % ranks;
                if (!dests[t].get(r)) continue;
                long at = next[r]++ * rowBytes;
                if (dst[r] != null) {
                    MemorySegment.copy(xs, t * rowBytes, dst[r], at, rowBytes);
                } else {
                    comm.rma().putNbi(pushDst, at, Memory.of(xs), t * rowBytes, rowBytes, r);
                    rma = true;
                }
            }
        }
        if (rma) comm.rma().quiet();
        return untilLastRank(t0);
    }

    /**
     * The bound of a combine on the host: nanoseconds, as {@link #time}, for every rank at once to read
     * {@code fromRank[s]} bytes of each peer s (one pass of vector loads, folded so that none is
     * skipped) and then write {@code outBytes} of private memory (a fill). A combine reads every
     * received row but writes one row per token, so a copy of the received bytes, which writes them
     * all, is not an upper limit for it. A combine has no closing barrier, so the bench times it the
     * same way ({@link #untilLastRank}): with its own end instead, the ranks that ran first on a host
     * with fewer cores than ranks finished before the others had started. {@code outBytes} is at most
     * {@code x}'s size (a combine's output has {@code x}'s shape). On a device this is {@link #time}
     * (the GPU has its roofline).
     */
    long timeGather(long[] fromRank, long outBytes) {
        if (device != null) return time(fromRank);
        comm.barrier();
        long t0 = System.nanoTime();
        long fold = readPeers(fromRank);
        hostDst.asSlice(0, outBytes).fill((byte) fold);
        return untilLastRank(t0);
    }

    /**
     * Reads {@code fromRank[s]} bytes of every mapped peer's {@link #gatherSrc} (wrapping around its size),
     * all peers at once (see {@link VectorRead#readStreams}), the way a combine reads a token's rows from
     * several ranks together: a bound that read peer after peer was slower than the combine it bounds.
     * A peer that is not mapped is fetched with RMA gets.
     */
    private long readPeers(long[] fromRank) {
        long size = gatherSrc.byteSize(), fold = 0;
        int ranks = fromRank.length, n = 0;
        MemorySegment[] segs = new MemorySegment[ranks];
        long[] left = new long[ranks], at = new long[ranks];
        for (int s = 0; s < ranks; s++) {
            Memory peer = gatherSrc.peerMemory(s).orElse(null);
            if (peer == null) {
                for (long rest = fromRank[s], chunk; rest > 0; rest -= chunk) {
                    chunk = Math.min(Math.min(rest, size), hostDst.byteSize());
                    comm.rma()
                            .get(Memory.of(hostDst), 0, gatherSrc, 0, chunk, s); // no mapping: the transfer is the read
                }
            } else if (fromRank[s] > 0) {
                segs[n] = peer.segment();
                left[n++] = fromRank[s];
            }
        }
        while (n > 0) {
            long len = PIECE; // a piece every stream has left before it ends or wraps
            for (int k = 0; k < n; k++) len = Math.min(len, Math.min(left[k], size - at[k]));
            fold ^= readStreams(segs, at, n, len);
            for (int k = 0; k < n; ) {
                at[k] = at[k] + len == size ? 0 : at[k] + len;
                left[k] -= len;
                if (left[k] > 0) {
                    k++;
                    continue;
                }
                n--; // this stream is done: the last one takes its place
                segs[k] = segs[n];
                left[k] = left[n];
                at[k] = at[n];
            }
        }
        return fold;
    }

    private static final long PIECE = 1 << 20;

    /**
     * Runs the read pass over {@code seg}, cut into {@code streams} parts read at once, until it is as
     * fast as it gets (no pass 3 % faster than the best for 20 passes, at least 0.3 s, at most 10 s):
     * until C2 has compiled it, its vector loads
     * run as boxed Java code, and a bound measured then would be slower than the combine it bounds
     * (seen with JFR on a loaded 2-core host).
     */
    private static void warmReads(MemorySegment seg, int streams) {
        long part = seg.byteSize() / streams;
        MemorySegment[] segs = new MemorySegment[streams];
        long[] from = new long[streams];
        for (int k = 0; k < streams; k++) {
            segs[k] = seg;
            from[k] = k * part;
        }
        long start = System.nanoTime(), best = Long.MAX_VALUE, fold = 0;
        for (int sinceBest = 0; ; ) {
            long t0 = System.nanoTime();
            fold ^= readStreams(segs, from, streams, part); // as many streams as the timed reads (one per rank)
            long now = System.nanoTime(), took = now - t0;
            if (took < best * 0.97) {
                best = took;
                sinceBest = 0;
            } else {
                sinceBest++;
            }
            if (now - start > 10_000_000_000L || (sinceBest >= 20 && now - start > 300_000_000L)) break;
        }
        sink = fold; // keeps the reads observable
    }

    private static volatile long sink;

    /** Whether the Vector API is there (the bench's workers start with it). */
    private static final boolean VECTOR =
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /** {@code len} bytes of each of {@code segs[0, n)} from {@code from[k]}, read at once and folded into one word (so the JIT cannot skip a load). */
    private static long readStreams(MemorySegment[] segs, long[] from, int n, long len) {
        return VECTOR ? VectorRead.readStreams(segs, from, n, len) : readStreamsScalar(segs, from, n, len);
    }

    /** {@link #readStreams} with 8-byte loads, 256 bytes of one stream, then of the next. */
    static long readStreamsScalar(MemorySegment[] segs, long[] from, int n, long len) {
        long fold = 0;
        for (long i = 0; i < len; i += 256)
            for (int k = 0; k < n; k++) fold ^= readScalar(segs[k], from[k] + i, from[k] + Math.min(len, i + 256));
        return fold;
    }

    /** {@code seg[from, end)} read once and folded, with 8-byte loads (four independent folds) and byte loads for the last 0-7 bytes. */
    static long readScalar(MemorySegment seg, long from, long end) {
        long a = 0, b = 0, c = 0, d = 0, i = from;
        for (; i + 32 <= end; i += 32) {
            a ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
            b ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 8);
            c ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 16);
            d ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i + 24);
        }
        for (; i + 8 <= end; i += 8) a ^= seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
        for (; i < end; i++) a ^= seg.get(ValueLayout.JAVA_BYTE, i);
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
                    if (peer == null)
                        throw new IllegalStateException(
                                "rank " + s + "'s symmetric memory is not mapped into this process");
                    device.copy(deviceDst, at, peer, 0, chunk);
                } else if (peer != null) MemorySegment.copy(peer.segment(), 0, hostDst, at, chunk);
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

    @Override
    public void close() {
        if (deviceDst != null) deviceDst.close();
        if (stamps != null) stamps.close();
        if (gatherSrc != null && gatherSrc != src) gatherSrc.close();
        if (pushDst != null) pushDst.close();
        src.close();
    }

    /** What {@link #timeDispatch} wrote to this rank (for tests). */
    MemorySegment pushed() {
        return pushDst.segment();
    }
}
