package dev.unicomm.collectives.moe;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.BackendSettings;
import dev.unicomm.spi.Setting;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads from every rank's copy of one symmetric buffer: by direct load where the backend maps the
 * peer's memory ({@code DIRECT_PEER_ACCESS}: shared memory) and the peer is on this rank's host, else by
 * RMA get. Counts the bytes that cross to other hosts ({@link #remoteBytes}), which tests compare with
 * what the algorithm should move.
 */
final class Peers {
    private final Communicator comm;
    private final SymmetricBuffer buffer;
    private final MemorySegment[] direct; // null entries: not load/store reachable
    private final boolean[] remote; // on another host
    /** Bytes read from or written to ranks on other hosts through this object (data and metadata). */
    long remoteBytes;

    Peers(Communicator comm, SymmetricBuffer buffer) {
        this.comm = comm;
        this.buffer = buffer;
        this.direct = new MemorySegment[comm.size()];
        this.remote = new boolean[comm.size()];
        dev.unicomm.api.HostTopology topo = comm.topology();
        boolean allowed = directAllowed();
        for (int pe = 0; pe < comm.size(); pe++) {
            // A peer on another host is never load/store reachable on real hardware; a topology simulated on
            // one machine must not take that shortcut either, or its cross-host path would go untested.
            remote[pe] = topo.hostOf(pe) != topo.host();
            if (allowed && !remote[pe]) direct[pe] = buffer.peer(pe).orElse(null);
        }
    }

    /** Whether every rank's copy is readable in place here (no read goes by RMA). */
    boolean allMapped() {
        for (MemorySegment d : direct) if (d == null) return false;
        return true;
    }

    /** Whether {@code pe} is on another host. */
    boolean remote(int pe) {
        return remote[pe];
    }

    /** Notes {@code bytes} written to {@code pe} by RMA (counted when it is on another host). */
    void wrote(int pe, long bytes) {
        if (remote[pe]) remoteBytes += bytes;
    }

    /** The switch for collectives and MoE alike (see {@link dev.unicomm.collectives.CollectivesSettings#direct}). */
    static final String DIRECT = "collectives.direct";
    /** The MoE's own switch before {@value #DIRECT} covered it: still read where the new key is unset, with a warning. */
    static final String DEPRECATED_DIRECT = "moe.direct";

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /**
     * {@code -Dunicomm.collectives.direct} / {@code UNICOMM_COLLECTIVES_DIRECT} (default true; the deprecated
     * {@code unicomm.moe.direct} where that is unset): false moves every MoE byte by RMA even where the backend
     * maps peers, so the path of backends without direct access (RDMA) can be run and tested on shared memory.
     * Every rank must use the same value.
     */
    static boolean directAllowed() {
        return directAllowed(BackendSettings.fromEnvironment());
    }

    static boolean directAllowed(BackendSettings settings) {
        String key = DIRECT, v = settings.get(DIRECT);
        if (v == null && (v = settings.get(DEPRECATED_DIRECT)) != null) {
            key = DEPRECATED_DIRECT;
            if (WARNED.compareAndSet(false, true))
                System.getLogger("dev.unicomm.collectives")
                        .log(
                                System.Logger.Level.WARNING,
                                "unicomm.moe.direct (UNICOMM_MOE_DIRECT) is deprecated: set unicomm.collectives.direct "
                                        + "(UNICOMM_COLLECTIVES_DIRECT), which switches collectives and MoE alike");
        }
        v = v == null ? "true" : v.trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false"))
            throw new IllegalArgumentException(
                    "unicomm." + key + " (" + Setting.variable(key) + ") must be true or false, got '" + v + "'");
        return Boolean.parseBoolean(v);
    }

    /** This rank's copy. */
    MemorySegment local() {
        return buffer.segment();
    }

    /** A directly readable view of {@code pe}'s copy, or {@code null}. */
    MemorySegment direct(int pe) {
        return direct[pe];
    }

    /** Copies {@code bytes} at {@code offset} of {@code pe}'s copy into {@code dst[dstOffset..]}. */
    void read(int pe, long offset, MemorySegment dst, long dstOffset, long bytes) {
        if (bytes == 0) return;
        if (remote[pe]) remoteBytes += bytes;
        MemorySegment seg = direct[pe];
        if (seg != null) MemorySegment.copy(seg, offset, dst, dstOffset, bytes);
        else comm.rma().get(Memory.of(dst), dstOffset, buffer, offset, bytes, pe);
    }

    /**
     * As {@link #read}, but a read by RMA is a non-blocking get that lands only at the next {@link #completeReads}
     * ({@code dst} must stay valid until then). Returns whether such a get was issued.
     */
    boolean readNbi(int pe, long offset, MemorySegment dst, long dstOffset, long bytes) {
        if (bytes == 0) return false;
        if (remote[pe]) remoteBytes += bytes;
        MemorySegment seg = direct[pe];
        if (seg != null) {
            MemorySegment.copy(seg, offset, dst, dstOffset, bytes);
            return false;
        }
        comm.rma().getNbi(Memory.of(dst), dstOffset, buffer, offset, bytes, pe);
        return true;
    }

    /** Completes every {@link #readNbi} issued so far (a quiet: one wait for all of them). */
    void completeReads() {
        comm.rma().quiet();
    }

    /** {@code count} int64 values at {@code offset} of {@code pe}'s copy. */
    long[] readLongs(int pe, long offset, int count) {
        long[] out = new long[count];
        if (count == 0) return out;
        MemorySegment seg = direct[pe];
        if (seg == null) {
            seg = MemorySegment.ofArray(new long[count]);
            read(pe, offset, seg, 0, 8L * count);
            offset = 0;
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_LONG_UNALIGNED, offset, out, 0, count);
        return out;
    }

    /** {@code count} fp32 values at {@code offset} of {@code pe}'s copy. */
    float[] readFloats(int pe, long offset, int count) {
        float[] out = new float[count];
        if (count == 0) return out;
        MemorySegment seg = direct[pe];
        if (seg == null) {
            seg = MemorySegment.ofArray(new float[count]);
            read(pe, offset, seg, 0, 4L * count);
            offset = 0;
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_FLOAT_UNALIGNED, offset, out, 0, count);
        return out;
    }
}
