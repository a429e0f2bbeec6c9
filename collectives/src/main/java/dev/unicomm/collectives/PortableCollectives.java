package dev.unicomm.collectives;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Collectives;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.collectives.Descriptor.Algorithm;
import dev.unicomm.collectives.Descriptor.Kind;
import dev.unicomm.spi.AlgorithmCounts;
import dev.unicomm.spi.LocalReduction;
import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * Collectives over the API's RMA and put-with-signal, for host-memory heaps. Every call starts
 * with one all-to-all round in which each member sends every other member a {@link Descriptor}
 * of the call (and, for small calls, the data itself); every member checks that all descriptors
 * agree and throws {@link IllegalArgumentException} otherwise, so a mismatch fails on every rank
 * instead of reducing garbage. Then, by size and by what the backend can do:
 * <ul>
 *   <li>{@code INLINE} (message &le; {@link CollectivesSettings#inlineBytes()}): the data rode along in that
 *       round; each member finishes locally. One round in total.</li>
 *   <li>{@code DIRECT} (peers' buffers are load/store reachable, {@link Capability#DIRECT_PEER_ACCESS}):
 *       members read peers' buffers in place. Allreduce is a reduce-scatter (each member reduces
 *       its 1/n chunk from all sources) and an allgather (each copies the others' chunks), with
 *       flag rounds between and at the end so that nobody reads a buffer its owner may reuse.</li>
 *   <li>{@code RMA} otherwise: data is put into the peers' destination buffers; reductions are
 *       reduce-scattered through scratch slots in slot-sized pieces, then allgathered by puts.</li>
 * </ul>
 * On several equal hosts the world's allgather, allreduce and reduce-scatter may run in two levels
 * ({@code TWO_LEVEL}: {@link #allgatherTwoLevel}, {@link TwoLevelReduction}).
 * Reductions run in team-rank order, so every member gets the same bits, whatever the algorithm.
 *
 * <p>In place ({@code dst == src}): allgather takes this member's contribution from block
 * {@code rank} of the buffer, and reduce-scatter leaves the result in block {@code rank} (as NCCL
 * and {@code MPI_IN_PLACE} do). Calls on one instance are serialised.
 *
 * <p>Where the backend's call agreement carries data (shm), the validating layer sends a small
 * allreduce's inputs in that agreement's round and only asks this class to reduce them
 * ({@link #reduceLocally}): one round instead of the agreement plus this class's first round.
 */
final class PortableCollectives implements Collectives, LocalReduction, AlgorithmCounts, AutoCloseable {
    private final Exchange ex;
    private final CollectivesSettings settings;
    private final boolean directCapable;
    private final Reducer reducer = new Reducer();
    /** The world's host groups where a two-level schedule applies (several hosts of equal size > 1), else null. */
    private final TwoLevelGroups hosts;
    /** The order-keeping two-level allreduce and reduce-scatter, where the hosts are host-major; else null. */
    private final TwoLevelReduction chain;

    /** Allocates the scratch memory: collective over the communicator. */
    PortableCollectives(Communicator comm, CollectivesSettings settings) {
        this(comm, settings, true);
    }

    /** As above; {@code twoLevel} false keeps every collective flat across hosts. */
    PortableCollectives(Communicator comm, CollectivesSettings settings, boolean twoLevel) {
        if (!comm.heap().kind().isHost())
            throw new IllegalStateException("portable collectives work on host-memory heaps; backend '"
                    + comm.backend().name() + "' has a " + comm.heap().kind()
                    + " heap and must provide native collectives");
        this.settings = settings;
        this.directCapable = settings.direct() && comm.has(Capability.DIRECT_PEER_ACCESS);
        this.hosts = twoLevel ? TwoLevelGroups.of(comm.topology()) : null;
        this.ex = new Exchange(comm, settings.slotBytes());
        this.chain = hosts != null && hosts.hostMajor ? new TwoLevelReduction(ex, reducer, hosts) : null;
    }

    /** Calls by {@code operation/algorithm}, for {@link #algorithmCounts()}. */
    private final java.util.Map<String, java.util.concurrent.atomic.LongAdder> calls =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Counts one call of {@code op} under the algorithm every member agreed to run. */
    private void count(String op, Algorithm a) {
        calls.computeIfAbsent(
                        op + "/" + a.name().toLowerCase(java.util.Locale.ROOT),
                        k -> new java.util.concurrent.atomic.LongAdder())
                .increment();
    }

    /** {@code operation/algorithm}: inline, direct, rma or two_level, as the members agreed in each call's first round. */
    @Override
    public java.util.Map<String, Long> algorithmCounts() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        calls.forEach((k, n) -> m.put(k, n.sum()));
        return m;
    }

    /** Payload bytes this rank has put to ranks on other hosts so far (for tests and benchmarks). */
    long interHostBytes() {
        return ex.interHostBytes();
    }

    /** Whether the world's reduction of {@code dtype} runs the two-level chain: it must move fewer bytes across hosts. */
    private boolean chainReduces(Ctx c, boolean allreduce, DType dtype) {
        return chain != null
                && hosts.coversWorld(c.w)
                && TwoLevelReduction.fewerBytes(allreduce, dtype, hosts.hosts(), hosts.local());
    }

    /** The members of one call's team. */
    private record Ctx(int n, int r, int[] w, long fingerprint) {}

    /** What the first round brought: each member's descriptor and slot, and the algorithm to run. */
    private record Entry(Descriptor[] descriptors, MemorySegment[] slots, Algorithm algorithm) {}

    /** Member lists never change, so each team's is computed once (weak: closed teams go away). */
    private final java.util.Map<Team, Ctx> teams = new java.util.WeakHashMap<>();

    private Ctx ctx(Team team) {
        Ctx c = teams.get(team);
        if (c == null) teams.put(team, c = members(team));
        return c;
    }

    private static Ctx members(Team team) {
        int n = team.size();
        int[] w = new int[n];
        for (int i = 0; i < n; i++) w[i] = team.worldRank(i);
        return new Ctx(n, team.rank(), w, Descriptor.teamFingerprint(w));
    }

    // ---------------------------------------------------------------- the collectives

    @Override
    public synchronized void broadcast(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root) {
        long bytes = count * dtype.byteSize(); // the validating layer checked it against both buffers
        Ctx c = ctx(team);
        boolean isRoot = c.r == root;
        Algorithm want = bytes <= settings.inlineBytes()
                ? Algorithm.INLINE
                : reachable(c, root, src) ? Algorithm.DIRECT : Algorithm.RMA;
        MemorySegment mine = src.segment().asSlice(0, bytes);
        Descriptor d = Descriptor.of(Kind.BROADCAST, want, null, null, bytes, root, c.fingerprint);
        Entry e = entry("broadcast", c, d, isRoot && want == Algorithm.INLINE ? p -> mine : null, true, null);
        MemorySegment out = dst.segment().asSlice(0, bytes);
        if (isRoot) {
            if (!same(dst, src)) MemorySegment.copy(mine, 0, out, 0, bytes);
        }
        switch (e.algorithm) {
            case INLINE -> {
                if (!isRoot) MemorySegment.copy(e.slots[root], Exchange.HEADER, out, 0, bytes);
            }
            case DIRECT -> {
                if (!isRoot) MemorySegment.copy(peer(src, c.w[root]), 0, out, 0, bytes);
                flagRound(c);
            }
            case RMA -> {
                if (isRoot) {
                    ex.beginRound();
                    for (int i = 1; i < c.n; i++) ex.sendInto(c.w[(c.r + i) % c.n], dst, 0, src, 0, bytes);
                } else {
                    ex.await(c.w[root]);
                }
            }
        }
    }

    @Override
    public synchronized void allgather(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        Ctx c = ctx(team);
        long b = countPerPe * dtype.byteSize();
        boolean inPlace = same(dst, src);
        long myOff = inPlace ? c.r * b : 0;
        Algorithm want = b <= settings.inlineBytes()
                ? Algorithm.INLINE
                : hosts != null && hosts.coversWorld(c.w)
                        ? Algorithm.TWO_LEVEL
                        : reachable(c, -1, src) ? Algorithm.DIRECT : Algorithm.RMA;
        MemorySegment mine = src.segment().asSlice(myOff, b);
        Descriptor d = Descriptor.of(Kind.ALLGATHER, want, null, null, b, -1, c.fingerprint);
        Entry e = entry("allgather", c, d, want == Algorithm.INLINE ? p -> mine : null, true, null);
        MemorySegment out = dst.segment();
        if (!inPlace) MemorySegment.copy(mine, 0, out, c.r * b, b);
        switch (e.algorithm) {
            case INLINE -> copyInlineBlocks(c, e, out, b);
            case DIRECT -> {
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    MemorySegment.copy(peer(src, c.w[p]), inPlace ? p * b : 0, out, p * b, b);
                }
                flagRound(c);
            }
            case RMA -> {
                ex.beginRound();
                for (int i = 1; i < c.n; i++) ex.sendInto(c.w[(c.r + i) % c.n], dst, c.r * b, src, myOff, b);
                for (int i = 1; i < c.n; i++) ex.await(c.w[(c.r - i + c.n) % c.n]);
            }
            case TWO_LEVEL -> allgatherTwoLevel(dst, src, myOff, b);
        }
    }

    /**
     * Allgather of the world in two levels: (1) my block to the ranks of my local rank on the other hosts,
     * the only bytes that cross hosts ({@code b} per other host instead of {@code b} per other-host rank);
     * (2) the blocks of my local rank's column, mine and those just received, to the other ranks of my host.
     * Puts with signals only (the first level has no direct path; the second is as fast by RMA on shm).
     */
    private void allgatherTwoLevel(SymmetricBuffer dst, SymmetricBuffer src, long myOff, long b) {
        int me = hosts.me;
        ex.beginRound();
        for (int q : hosts.column) if (q != me) ex.sendInto(q, dst, me * b, src, myOff, b);
        for (int q : hosts.column) if (q != me) ex.await(q);
        ex.beginRound();
        for (int p : hosts.node) {
            if (p == me) continue;
            for (int q : hosts.column) ex.sendInto(p, dst, q * b, dst, q * b, b);
        }
        for (int p : hosts.node) {
            if (p == me) continue;
            for (int k = 0; k < hosts.column.length; k++) ex.await(p);
        }
    }

    @Override
    public synchronized void allreduce(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        Ctx c = ctx(team);
        int es = dtype.byteSize();
        long bytes = count * es;
        Algorithm want = bytes <= settings.inlineBytes()
                ? Algorithm.INLINE
                : chainReduces(c, true, dtype)
                        ? Algorithm.TWO_LEVEL
                        : reachable(c, -1, src, dst) ? Algorithm.DIRECT : Algorithm.RMA;
        MemorySegment mine = src.segment().asSlice(0, bytes);
        Descriptor d = Descriptor.of(Kind.ALLREDUCE, want, dtype, op, count, -1, c.fingerprint);
        Entry e = entry("allreduce", c, d, want == Algorithm.INLINE ? p -> mine : null, true, null);
        MemorySegment out = dst.segment();
        if (c.n == 1) {
            if (!same(dst, src)) MemorySegment.copy(mine, 0, out, 0, bytes);
            return;
        }
        long[] chunk = Chunks.split(count, c.n, es);
        switch (e.algorithm) {
            case INLINE -> {
                MemorySegment[] srcs = new MemorySegment[c.n];
                for (int p = 0; p < c.n; p++) srcs[p] = p == c.r ? mine : e.slots[p].asSlice(Exchange.HEADER, bytes);
                reducer.reduce(dtype, op, srcs, out, count);
            }
            case DIRECT -> {
                long a = chunk[c.r], len = chunk[c.r + 1] - a;
                MemorySegment[] srcs = new MemorySegment[c.n];
                for (int p = 0; p < c.n; p++) srcs[p] = (p == c.r ? mine : peer(src, c.w[p])).asSlice(a * es, len * es);
                reducer.reduce(dtype, op, srcs, out.asSlice(a * es, len * es), len);
                flagRound(c);
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    long pa = chunk[p] * es, pl = (chunk[p + 1] - chunk[p]) * es;
                    MemorySegment.copy(peer(dst, c.w[p]), pa, out, pa, pl);
                }
                flagRound(c);
            }
            case RMA -> {
                reduceScatterRounds(c, dtype, op, src, dst, chunk, es, chunk[c.r] * es);
                long a = chunk[c.r] * es, len = (chunk[c.r + 1] - chunk[c.r]) * es;
                ex.beginRound();
                for (int i = 1; i < c.n; i++) ex.sendInto(c.w[(c.r + i) % c.n], dst, a, dst, a, len);
                for (int i = 1; i < c.n; i++) ex.await(c.w[(c.r - i + c.n) % c.n]);
            }
            case TWO_LEVEL -> chain.allreduce(dtype, op, src, dst, count);
        }
    }

    @Override
    public synchronized void reduceScatter(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op) {
        Ctx c = ctx(team);
        int es = dtype.byteSize();
        long blockBytes = countPerPe * es;
        long dstOff = same(dst, src) ? c.r * blockBytes : 0;
        Algorithm want = blockBytes <= settings.inlineBytes()
                ? Algorithm.INLINE
                : chainReduces(c, false, dtype)
                        ? Algorithm.TWO_LEVEL
                        : reachable(c, -1, src) ? Algorithm.DIRECT : Algorithm.RMA;
        MemorySegment in = src.segment();
        // Pair word 0 tells the others where this member keeps its block (in place or not): two levels put results
        // there.
        Descriptor d = new Descriptor(
                Kind.REDUCE_SCATTER, want, dtype, op, countPerPe, -1, c.fingerprint, new long[] {dstOff, 0, 0, 0});
        Entry e = entry(
                "reduceScatter",
                c,
                d,
                want == Algorithm.INLINE ? p -> in.asSlice(p * blockBytes, blockBytes) : null,
                false,
                null);
        MemorySegment out = dst.segment().asSlice(dstOff, blockBytes);
        long[] blocks = new long[c.n + 1];
        for (int j = 0; j <= c.n; j++) blocks[j] = j * countPerPe;
        switch (e.algorithm) {
            case INLINE, DIRECT -> {
                MemorySegment[] srcs = new MemorySegment[c.n];
                for (int p = 0; p < c.n; p++) {
                    if (p == c.r) srcs[p] = in.asSlice(c.r * blockBytes, blockBytes);
                    else if (e.algorithm == Algorithm.INLINE) srcs[p] = e.slots[p].asSlice(Exchange.HEADER, blockBytes);
                    else srcs[p] = peer(src, c.w[p]).asSlice(c.r * blockBytes, blockBytes);
                }
                reducer.reduce(dtype, op, srcs, out, countPerPe);
                if (e.algorithm == Algorithm.DIRECT) flagRound(c);
            }
            case RMA -> reduceScatterRounds(c, dtype, op, src, dst, blocks, es, dstOff);
            case TWO_LEVEL -> {
                long[] dstOffs = new long[c.n];
                for (int p = 0; p < c.n; p++) dstOffs[p] = e.descriptors[p].pair()[0];
                chain.reduceScatter(dtype, op, src, dst, countPerPe, dstOffs);
            }
        }
    }

    @Override
    public synchronized void alltoall(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        Ctx c = ctx(team);
        long b = countPerPe * dtype.byteSize();
        Algorithm want = b <= settings.inlineBytes()
                ? Algorithm.INLINE
                : reachable(c, -1, src) ? Algorithm.DIRECT : Algorithm.RMA;
        MemorySegment in = src.segment();
        Descriptor d = Descriptor.of(Kind.ALLTOALL, want, null, null, b, -1, c.fingerprint);
        Entry e = entry("alltoall", c, d, want == Algorithm.INLINE ? p -> in.asSlice(p * b, b) : null, false, null);
        MemorySegment out = dst.segment();
        MemorySegment.copy(in, c.r * b, out, c.r * b, b);
        switch (e.algorithm) {
            case INLINE -> copyInlineBlocks(c, e, out, b);
            case DIRECT -> {
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    MemorySegment.copy(peer(src, c.w[p]), c.r * b, out, p * b, b);
                }
                flagRound(c);
            }
            case RMA -> {
                ex.beginRound();
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    ex.sendInto(c.w[p], dst, c.r * b, src, p * b, b);
                }
                for (int i = 1; i < c.n; i++) ex.await(c.w[(c.r - i + c.n) % c.n]);
            }
        }
    }

    @Override
    public synchronized void alltoallv(
            Team team,
            SymmetricBuffer dst,
            long[] recvCountsIn,
            long[] recvOffsetsIn,
            SymmetricBuffer src,
            long[] sendCountsIn,
            long[] sendOffsetsIn,
            DType dtype) {
        // The exchange works in bytes; counts and offsets arrive in elements of dtype.
        long[] recvCounts = inBytes(recvCountsIn, dtype), recvOffsets = inBytes(recvOffsetsIn, dtype);
        long[] sendCounts = inBytes(sendCountsIn, dtype), sendOffsets = inBytes(sendOffsetsIn, dtype);
        Ctx c = ctx(team);
        Algorithm want = reachable(c, -1, src) ? Algorithm.DIRECT : Algorithm.RMA;
        long[][] pair = new long[c.n][];
        for (int p = 0; p < c.n; p++)
            pair[p] = new long[] {sendCounts[p], sendOffsets[p], recvCounts[p], recvOffsets[p]};
        Descriptor d = Descriptor.of(Kind.ALLTOALLV, want, null, null, 0, -1, c.fingerprint);
        Entry e = entry("alltoallv", c, d, null, false, pair);
        // Counts are pair-wise: each member checks its own pairs, then all share their verdicts.
        String problem = sendCounts[c.r] == recvCounts[c.r]
                ? null
                : "team rank " + c.r + " sends itself " + sendCounts[c.r] + " bytes but expects " + recvCounts[c.r];
        for (int p = 0; p < c.n && problem == null; p++) {
            if (p == c.r) continue;
            long[] theirs = e.descriptors[p].pair();
            if (theirs[0] != recvCounts[p])
                problem = "team rank " + p + " sends " + theirs[0] + " bytes to team rank " + c.r + ", which expects "
                        + recvCounts[p];
            else if (theirs[2] != sendCounts[p])
                problem = "team rank " + p + " expects " + theirs[2] + " bytes from team rank " + c.r + ", which sends "
                        + sendCounts[p];
        }
        shareVerdicts(c, problem);
        MemorySegment in = src.segment(), out = dst.segment();
        MemorySegment.copy(in, sendOffsets[c.r], out, recvOffsets[c.r], sendCounts[c.r]);
        switch (e.algorithm) {
            case DIRECT -> {
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    MemorySegment.copy(
                            peer(src, c.w[p]), e.descriptors[p].pair()[1], out, recvOffsets[p], recvCounts[p]);
                }
                flagRound(c);
            }
            default -> {
                ex.beginRound();
                for (int i = 1; i < c.n; i++) {
                    int p = (c.r + i) % c.n;
                    ex.sendInto(c.w[p], dst, e.descriptors[p].pair()[3], src, sendOffsets[p], sendCounts[p]);
                }
                for (int i = 1; i < c.n; i++) ex.await(c.w[(c.r - i + c.n) % c.n]);
            }
        }
    }

    private static long[] inBytes(long[] elements, DType dtype) {
        long[] b = new long[elements.length];
        for (int i = 0; i < b.length; i++) b[i] = elements[i] * dtype.byteSize();
        return b;
    }

    /** The inline allreduce's arithmetic, for inputs that arrived in the call agreement. */
    @Override
    public synchronized void reduceLocally(
            DType dtype, ReduceOp op, MemorySegment[] inputs, MemorySegment out, long count) {
        reducer.reduce(dtype, op, inputs, out, count);
    }

    /** Frees the scratch memory (collective over the communicator). */
    @Override
    public synchronized void close() {
        ex.close();
    }

    // ---------------------------------------------------------------- building blocks

    /** {@link #roundZero}, then the call of {@code op} counted under the algorithm the members agreed on. */
    private Entry entry(
            String op, Ctx c, Descriptor d, IntFunction<MemorySegment> payload, boolean samePayload, long[][] pair) {
        Entry e = roundZero(c, d, payload, samePayload, pair);
        count(op, e.algorithm);
        return e;
    }

    /**
     * Round 0: sends every peer the descriptor (plus {@code payload.apply(peer)} inline, if given),
     * waits for every peer's, and checks that all agree.
     */
    private Entry roundZero(
            Ctx c, Descriptor d, IntFunction<MemorySegment> payload, boolean samePayload, long[][] pair) {
        Descriptor[] all = new Descriptor[c.n];
        MemorySegment[] slots = new MemorySegment[c.n];
        all[c.r] = pair == null ? d : withPair(d, pair[c.r]);
        if (c.n == 1) return new Entry(all, slots, d.algorithm());
        ex.beginRound();
        MemorySegment header = ex.stagingHeader();
        long staged = -1;
        for (int i = 1; i < c.n; i++) {
            int p = (c.r + i) % c.n;
            if (staged < 0 || !samePayload || pair != null) {
                d.write(header, pair == null ? null : pair[p]);
                MemorySegment pl = payload == null ? null : payload.apply(p);
                if (pl != null) ex.stagePayload(pl);
                staged = pl == null ? 0 : pl.byteSize();
            }
            ex.sendStaged(c.w[p], staged);
        }
        for (int i = 1; i < c.n; i++) {
            int p = (c.r - i + c.n) % c.n;
            slots[p] = ex.awaitSlot(c.w[p]);
            all[p] = Descriptor.read(slots[p]);
        }
        Algorithm algo = d.algorithm();
        boolean agree = true;
        for (Descriptor o : all) {
            agree &= o.agreesWith(d);
            if (o.algorithm() == Algorithm.RMA) algo = Algorithm.RMA;
            // Two levels only if every member chose them; any other non-inline mix runs RMA, which every member can.
            if ((o.algorithm() == Algorithm.TWO_LEVEL) != (d.algorithm() == Algorithm.TWO_LEVEL)) algo = Algorithm.RMA;
        }
        if (!agree) throw disagreement(all);
        return new Entry(all, slots, algo);
    }

    /** Inline algorithms: every other member's block of {@code b} bytes, from its round-0 slot, to {@code out} at its place. */
    private static void copyInlineBlocks(Ctx c, Entry e, MemorySegment out, long b) {
        for (int p = 0; p < c.n; p++) if (p != c.r) MemorySegment.copy(e.slots[p], Exchange.HEADER, out, p * b, b);
    }

    private static Descriptor withPair(Descriptor d, long[] pair) {
        return new Descriptor(d.kind(), d.algorithm(), d.dtype(), d.op(), d.count(), d.root(), d.team(), pair);
    }

    private static IllegalArgumentException disagreement(Descriptor[] all) {
        StringBuilder sb =
                new StringBuilder("collective call mismatch: every member of the team must make the same call "
                        + "(same collective, counts, dtype, op, root, team and unicomm.collectives.* settings); got");
        for (int p = 0; p < all.length; p++)
            sb.append(p == 0 ? " " : "; ")
                    .append("team rank ")
                    .append(p)
                    .append(": ")
                    .append(all[p].describe());
        return new IllegalArgumentException(sb.toString());
    }

    /** One all-to-all slot round carrying each member's verdict; throws on every member if anyone found a problem. */
    private void shareVerdicts(Ctx c, String mine) {
        String[] verdicts = new String[c.n];
        verdicts[c.r] = mine;
        if (c.n > 1) {
            byte[] text = mine == null ? new byte[0] : mine.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int len = (int) Math.min(text.length, ex.capacity());
            Descriptor v = Descriptor.of(Kind.VERDICT, Algorithm.INLINE, null, null, len, -1, c.fingerprint);
            ex.beginRound();
            v.write(ex.stagingHeader(), null);
            ex.stagePayload(MemorySegment.ofArray(text).asSlice(0, len));
            for (int i = 1; i < c.n; i++) ex.sendStaged(c.w[(c.r + i) % c.n], len);
            for (int i = 1; i < c.n; i++) {
                int p = (c.r - i + c.n) % c.n;
                MemorySegment slot = ex.awaitSlot(c.w[p]);
                long n = Descriptor.read(slot).count();
                if (n > 0)
                    verdicts[p] = new String(
                            slot.asSlice(Exchange.HEADER, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        StringBuilder sb = null;
        for (String s : verdicts) {
            if (s == null) continue;
            sb = sb == null ? new StringBuilder("alltoallv counts do not match across ranks: ") : sb.append("; ");
            sb.append(s);
        }
        if (sb != null) throw new IllegalArgumentException(sb.toString());
    }

    /** A round of empty messages: after it, every member has finished what it did before it. */
    private void flagRound(Ctx c) {
        ex.beginRound();
        for (int i = 1; i < c.n; i++) ex.sendFlag(c.w[(c.r + i) % c.n]);
        for (int i = 1; i < c.n; i++) ex.await(c.w[(c.r - i + c.n) % c.n]);
    }

    /**
     * Reduce-scatter through scratch slots: block {@code j} is elements {@code [blocks[j], blocks[j+1])}
     * of {@code src}; this member's reduced block goes to {@code dst[dstOff..]}. Each round moves one
     * slot-sized piece of every block to its owner.
     */
    private void reduceScatterRounds(
            Ctx c,
            DType dt,
            ReduceOp op,
            SymmetricBuffer src,
            SymmetricBuffer dst,
            long[] blocks,
            int es,
            long dstOff) {
        long piece = Math.max(1, ex.capacity() / es);
        long longest = 0;
        for (int j = 0; j < c.n; j++) longest = Math.max(longest, blocks[j + 1] - blocks[j]);
        long rounds = (longest + piece - 1) / piece;
        MemorySegment in = src.segment(), out = dst.segment();
        MemorySegment[] srcs = new MemorySegment[c.n];
        for (long s = 0; s < rounds; s++) {
            long first = s * piece;
            ex.beginRound();
            for (int i = 1; i < c.n; i++) {
                int p = (c.r + i) % c.n;
                long len = clamp(blocks[p + 1] - blocks[p] - first, piece);
                ex.sendSlot(c.w[p], src, (blocks[p] + first) * es, len * es);
            }
            long mineLen = clamp(blocks[c.r + 1] - blocks[c.r] - first, piece);
            for (int i = 1; i < c.n; i++) {
                int p = (c.r - i + c.n) % c.n;
                srcs[p] = ex.awaitSlot(c.w[p]).asSlice(Exchange.HEADER, mineLen * es);
            }
            srcs[c.r] = in.asSlice((blocks[c.r] + first) * es, mineLen * es);
            reducer.reduce(dt, op, srcs, out.asSlice(dstOff + first * es, mineLen * es), mineLen);
        }
    }

    private static long clamp(long left, long piece) {
        return Math.max(0, Math.min(left, piece));
    }

    /** Whether every peer's copy of every buffer is load/store reachable (only the root's, for {@code root >= 0}). */
    private boolean reachable(Ctx c, int root, SymmetricBuffer... bufs) {
        if (!directCapable) return false;
        for (SymmetricBuffer b : bufs) {
            for (int p = 0; p < c.n; p++) {
                if (p == c.r || (root >= 0 && p != root)) continue;
                if (b.peer(c.w[p]).isEmpty()) return false;
            }
        }
        return true;
    }

    private static MemorySegment peer(SymmetricBuffer b, int worldRank) {
        return b.peer(worldRank)
                .orElseThrow(() -> new IllegalStateException(
                        "PE " + worldRank + "'s buffer became unreachable for direct access during a collective"));
    }

    private static boolean same(SymmetricBuffer a, SymmetricBuffer b) {
        return a == b || a.offset() == b.offset();
    }
}
