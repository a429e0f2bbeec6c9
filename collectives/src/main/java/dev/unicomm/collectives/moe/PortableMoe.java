package dev.unicomm.collectives.moe;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.spi.AlgorithmCounts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What both portable modes share: one symmetric buffer of exactly {@link MoeConfig#sizeHint(int)}
 * bytes, peer access, the layout computation and host-memory checks. Arguments arrive validated
 * by the API's checking layer; this class re-checks only what the implementation relies on.
 */
abstract class PortableMoe implements MoeBuffer, AlgorithmCounts {
    final Communicator comm;
    final MoeConfig config;
    final int ranks, me, numLocal, hidden, topk, maxTokens;
    final SymmetricBuffer buffer;
    final Peers peers;
    final MemorySegment local;
    /** Private memory: combine outputs, reused from call to call. */
    final Arena arena = Arena.ofShared();

    private boolean closed;
    /** Calls by operation, for {@link #algorithmCounts()}. */
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

    PortableMoe(Communicator comm, MoeConfig config) {
        this.comm = comm;
        this.config = config;
        this.ranks = comm.size();
        this.me = comm.rank();
        this.numLocal = config.numLocalExperts(ranks);
        this.hidden = config.hidden();
        this.topk = config.numTopk();
        this.maxTokens = config.maxTokensPerRank();
        this.buffer = comm.heap().allocate(config.sizeHint(ranks));
        this.peers = new Peers(comm, buffer);
        this.local = buffer.segment();
    }

    @Override
    public MoeConfig config() {
        return config;
    }

    /** The algorithm this buffer runs, fixed at open: {@code flat}, {@code hierarchical} or {@code direct} (low latency). */
    abstract String algorithm();

    /** Counts one call of {@code op} (an operation of {@link MoeBuffer}) under this buffer's algorithm. */
    final void count(String op) {
        calls.computeIfAbsent(op, k -> new LongAdder()).increment();
    }

    /** {@code moe.<operation>/<algorithm>}: every call of this buffer ran its one algorithm. */
    @Override
    public Map<String, Long> algorithmCounts() {
        Map<String, Long> m = new TreeMap<>();
        calls.forEach((op, n) -> m.put("moe." + op + "/" + algorithm(), n.sum()));
        return m;
    }

    @Override
    public MoeLayout layout(Tensor topkIdx) {
        long[] idx = longs(host("topkIdx", topkIdx));
        int t = (int) topkIdx.dim(0);
        int[] perRank = new int[ranks], perExpert = new int[config.numExperts()];
        byte[] inRank = new byte[t * ranks];
        for (int i = 0; i < t; i++) {
            for (int k = 0; k < topk; k++) {
                long e = idx[i * topk + k];
                if (e < 0) continue;
                perExpert[(int) e]++;
                inRank[i * ranks + (int) (e / numLocal)] = 1;
            }
            for (int r = 0; r < ranks; r++) perRank[r] += inRank[i * ranks + r];
        }
        Arena auto = Arena.ofAuto();
        Tensor pr = Tensor.allocate(auto, DType.INT32, ranks),
                pe = Tensor.allocate(auto, DType.INT32, config.numExperts());
        Tensor ir = Tensor.allocate(auto, DType.BOOL, t, ranks);
        MemorySegment.copy(perRank, 0, pr.segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, ranks);
        MemorySegment.copy(perExpert, 0, pe.segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, perExpert.length);
        MemorySegment.copy(inRank, 0, ir.segment(), ValueLayout.JAVA_BYTE, 0, inRank.length);
        return new MoeLayout(pr, pe, ir);
    }

    // Operations of the other mode: the checking layer reports these; kept safe here too.
    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout, int a) {
        throw wrongMode("dispatch");
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        throw wrongMode("dispatch");
    }

    @Override
    public Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights) {
        throw wrongMode("combine");
    }

    @Override
    public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        throw wrongMode("lowLatencyDispatch");
    }

    @Override
    public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        throw wrongMode("lowLatencyCombine");
    }

    private IllegalStateException wrongMode(String op) {
        return new IllegalStateException(op + " is not available on a " + config.mode() + " MoE buffer");
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            buffer.close();
        } finally {
            arena.close();
        }
    }

    /** The portable implementation reads and writes tensors on the host. */
    static Tensor host(String what, Tensor t) {
        if (t != null && t.memory().kind() != MemoryKind.HOST)
            throw new IllegalArgumentException(
                    what + " is " + t.memory().kind() + " memory; the portable MoE needs host tensors");
        return t;
    }

    static long[] longs(Tensor t) {
        return t.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    /** Whether {@code t}'s memory starts exactly at {@code region}. */
    static boolean startsAt(Tensor t, MemorySegment region) {
        MemorySegment s = t.segment();
        return s.isNative() && s.address() == region.address();
    }

    /** Whether {@code t}'s memory overlaps {@code region}. */
    static boolean overlaps(Tensor t, MemorySegment region) {
        MemorySegment s = t.segment();
        return s.isNative()
                && s.byteSize() > 0
                && s.address() < region.address() + region.byteSize()
                && region.address() < s.address() + s.byteSize();
    }

    void ensureOpen() {
        if (closed) throw new IllegalStateException("MoE buffer is closed");
    }
}
