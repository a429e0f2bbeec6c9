package dev.unicomm.internal.checked;

import dev.unicomm.api.CallMismatchException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.DType;
import dev.unicomm.api.Team;
import dev.unicomm.spi.CallAgreement;
import dev.unicomm.spi.PayloadAgreement;
import dev.unicomm.spi.Store;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Makes every collective call agree across the team before it runs. Each call publishes a word set
 * {@code [sequence, operation | failed, a, b]} through the backend's {@link CallAgreement} and
 * compares all members' sets: a member that skipped the call, called another operation, passed other
 * key arguments ({@code a}, {@code b}) or rejected its own arguments (it publishes "failed" before it
 * throws) makes every member throw {@link CallMismatchException} naming the operation and that
 * rank, before anything is exchanged. Barriers issued inside a call carry the enclosing call in their
 * words, so they cannot be satisfied by another rank's separate call either.
 *
 * <p>An agreement that is not as cheap as a barrier ({@link CallAgreement#coversEveryCall()} false:
 * nvshmem) checks only the {@linkplain Op#costly() costly} calls. Without a {@link CallAgreement}
 * from the backend (rdma, ascend) calls run
 * unchecked, as before: a rank that rejected its own arguments throws alone, and a mismatch shows up
 * only where the implementation checks it (the portable collectives' descriptors, the heap). Aborting
 * the job there instead would make every argument error fatal, which the kit's bad-input rules forbid.
 *
 * <p>Nested calls (the portable MoE calling the API) are covered by the enclosing call's agreement.
 *
 * <p>With a {@link PayloadAgreement} (shm) a small call can carry its data in the agreement's round
 * ({@link #agreeCarrying}): one all-member round for both. Its words are flagged "carried", so a
 * member that would run the same call the two-round way disagrees instead of waiting for a message
 * that never comes. Every other call uses the same exchange, so mismatches are caught as before.
 */
final class CallLedger {
    /** Operations as named in messages, with how their key arguments sit in the two words ({@link CallWords}). */
    enum Op {
        BARRIER("barrier"),
        INTERNAL_BARRIER("barrier inside a call"),
        ALLOCATE("heap allocate", CallWords.number("size", 0, 0, 64), CallWords.number("alignment", 1, 0, 64)),
        FREE("heap free", CallWords.number("offset", 0, 0, 64), CallWords.number("size", 1, 0, 64)),
        MOE_OPEN("moe buffer open", CallWords.MOE_OPEN),
        DISPATCH(
                "moe dispatch",
                CallWords.named("x dtype", 0, 0, 8, DType.values()),
                CallWords.bool("topk weights", 0, 8),
                CallWords.number("expert alignment", 1, 0, 64)),
        CACHED_DISPATCH("moe dispatch (cached handle)", CallWords.named("x dtype", 0, 0, 8, DType.values())),
        COMBINE("moe combine", CallWords.bool("topk weights", 0, 0)),
        LL_DISPATCH("moe lowLatencyDispatch", CallWords.bool("fp8", 0, 0), CallWords.bool("on stream", 1, 0)),
        LL_COMBINE("moe lowLatencyCombine", CallWords.bool("on stream", 1, 0)),
        BROADCAST(
                "broadcast", CallWords.number("count", 0, 0, 64), CallWords.DTYPE, CallWords.number("root", 1, 8, 56)),
        ALLGATHER("allgather", CallWords.number("count per PE", 0, 0, 64), CallWords.DTYPE),
        ALLREDUCE("allreduce", CallWords.number("count", 0, 0, 64), CallWords.DTYPE, CallWords.REDUCE_OP),
        REDUCE_SCATTER(
                "reduceScatter", CallWords.number("count per PE", 0, 0, 64), CallWords.DTYPE, CallWords.REDUCE_OP),
        ALLTOALL("alltoall", CallWords.number("count per PE", 0, 0, 64), CallWords.DTYPE),
        ALLTOALLV("alltoallv", CallWords.DTYPE),
        SPLIT(
                "team split",
                CallWords.number("start", 0, 0, 32),
                CallWords.number("stride", 0, 32, 32),
                CallWords.number("size", 1, 0, 64)),
        SPLIT_2D("team split2d", CallWords.number("xRange", 0, 0, 64));

        final String label;
        final CallWords.Field[] fields;

        Op(String label, CallWords.Field... fields) {
            this.label = label;
            this.fields = fields;
        }

        /** Costly enough that an agreement that is not as cheap as a barrier still checks it (collectives, heap, teams, MoE open). */
        boolean costly() {
            return switch (this) {
                case BARRIER, INTERNAL_BARRIER, DISPATCH, CACHED_DISPATCH, COMBINE, LL_DISPATCH, LL_COMBINE -> false;
                default -> true;
            };
        }
    }

    private static final long FAILED = 1;
    /** The call's data rode in the agreement exchange (the implementation's own first round is skipped). */
    private static final long CARRIED = 2;

    private static final Op[] OPS = Op.values();

    private final CallAgreement agreement; // null: the backend has none
    private final PayloadAgreement carrier; // null: the agreement carries no data
    private final Store store;
    private final int worldRank;
    private final Duration noteWait;
    /** Enclosing call on this thread (null outside calls). */
    private final ThreadLocal<long[]> current = new ThreadLocal<>();

    private long failures;

    CallLedger(CallAgreement agreement, Store store, int worldRank, Duration timeout) {
        this.agreement = agreement;
        this.carrier = agreement instanceof PayloadAgreement pa && agreement.coversEveryCall() ? pa : null;
        this.store = store;
        this.worldRank = worldRank;
        this.noteWait = timeout.compareTo(Duration.ofSeconds(5)) < 0 ? timeout : Duration.ofSeconds(5);
    }

    /** A call's checks: throws if this rank's own arguments are bad; returns the key arguments {a, b}. */
    interface Check {
        long[] run();
    }

    /** Per-team call counter (the world's lives in the world team), with the team's reused exchange arrays. */
    static final class Counter {
        long calls;
        private long[] mine;
        private long[][] all;
        private MemorySegment[] inputs;

        private void size(int n) {
            if (all != null) return;
            mine = new long[CallAgreement.WORDS];
            all = new long[n][CallAgreement.WORDS];
            inputs = new MemorySegment[n];
        }
    }

    /**
     * Runs one collective call: local checks, agreement over {@code team} (whose backend object is
     * {@code rawTeam}), then {@code body}.
     */
    <T> T call(Counter counter, Team rawTeam, Op op, Check check, Supplier<T> body) {
        if (current.get() != null) { // nested: the enclosing call's agreement covers it
            check.run();
            return body.get();
        }
        if (agreement == null || !(agreement.coversEveryCall() || op.costly())) {
            check.run();
            return body.get();
        }
        long[] args;
        try {
            args = check.run();
        } catch (RuntimeException e) {
            publishFailure(counter, rawTeam, op, e);
            throw e;
        }
        agree(counter, rawTeam, op, args[0], args[1], 0);
        long[] mark = {op.ordinal(), counter.calls};
        current.set(mark);
        try {
            return body.get();
        } finally {
            current.remove();
        }
    }

    void call(Counter counter, Team rawTeam, Op op, Check check, Runnable body) {
        call(counter, rawTeam, op, check, () -> {
            body.run();
            return null;
        });
    }

    /** A barrier: with an agreement it carries its call words (nested ones name the enclosing call); else {@code plain}. */
    void barrier(Counter counter, Team rawTeam, Runnable plain) {
        if (agreement == null || !agreement.coversEveryCall()) {
            plain.run();
            return;
        }
        long[] outer = current.get();
        if (outer == null) agree(counter, rawTeam, Op.BARRIER, 0, 0, 0);
        else agree(counter, rawTeam, Op.INTERNAL_BARRIER, outer[0], outer[1], 0);
    }

    private void publishFailure(Counter counter, Team rawTeam, Op op, RuntimeException cause) {
        String note = "rank " + worldRank + " rejected its own arguments to " + op.label + ": " + cause.getMessage();
        try {
            long id = ++failures;
            store.set(noteKey(worldRank, id), note.getBytes(StandardCharsets.UTF_8));
            agree(counter, rawTeam, op, id, 0, FAILED);
        } catch (CallMismatchException e) {
            // expected: the others learnt of our failure; ours is the exception to throw
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static String noteKey(int rank, long id) {
        return "unicomm.calls/failure/" + rank + "/" + id;
    }

    /** One exchange; throws {@link CallMismatchException} on every member unless all words agree. */
    private void agree(Counter counter, Team rawTeam, Op op, long a, long b, long flags) {
        long seq = ++counter.calls;
        long[] words = {seq, (long) op.ordinal() << 8 | flags, a, b};
        if (carrier == null) {
            check(rawTeam, op, agreement.exchange(rawTeam, words), flags);
            return;
        }
        counter.size(rawTeam.size());
        carrier.exchange(rawTeam, words, counter.all, null, 0, null);
        check(rawTeam, op, counter.all, flags);
    }

    /**
     * Whether a call moving {@code bytes} of data per member can carry it in the agreement exchange:
     * the backend's agreement carries data, it fits, and the call is not nested in another (whose
     * agreement already covers it and whose own round must not be mixed with ours).
     */
    boolean canCarry(long bytes) {
        return carrier != null && bytes >= 0 && bytes <= carrier.payloadCapacity() && current.get() == null;
    }

    /**
     * The agreement of a call whose data rides along (after {@link #canCarry}): publishes
     * {@code payload[0, bytes)}, checks every member's words like any call, and returns every member's
     * payload by team rank (valid until the next call over this team; reused, do not keep).
     */
    MemorySegment[] agreeCarrying(
            Counter counter, Team rawTeam, Op op, long a, long b, MemorySegment payload, long bytes) {
        counter.size(rawTeam.size());
        long[] words = counter.mine;
        words[0] = ++counter.calls;
        words[1] = (long) op.ordinal() << 8 | CARRIED;
        words[2] = a;
        words[3] = b;
        carrier.exchange(rawTeam, words, counter.all, payload, bytes, counter.inputs);
        check(rawTeam, op, counter.all, CARRIED);
        return counter.inputs;
    }

    /** This rank rejected its own arguments to {@code op}: tells the others (they fail at once), then the caller throws {@code cause}. */
    void rejected(Counter counter, Team rawTeam, Op op, RuntimeException cause) {
        publishFailure(counter, rawTeam, op, cause);
    }

    private void check(Team rawTeam, Op op, long[][] all, long flags) {
        long[] mine = all[rawTeam.rank()];
        boolean same = true;
        for (long[] w : all) same &= w[0] == mine[0] && w[1] == mine[1] && w[2] == mine[2] && w[3] == mine[3];
        if (same && (flags & FAILED) == 0) return;
        // A peer that passed our barrier while closing after a job abort is no call mismatch: report the abort.
        store.checkHealthy();
        throw mismatch(rawTeam, op, all);
    }

    private CallMismatchException mismatch(Team team, Op op, long[][] all) {
        int n = all.length;
        // The offender: a rank that published "failed", else one outside the largest group of equal calls.
        int offender = -1;
        for (int p = 0; p < n && offender < 0; p++) if (failed(all[p])) offender = p;
        if (offender < 0) {
            int best = 0, bestCount = 0;
            for (int p = 0; p < n; p++) {
                int c = 0;
                for (long[] w : all) if (java.util.Arrays.equals(w, all[p])) c++;
                if (c > bestCount) {
                    best = p;
                    bestCount = c;
                }
            }
            for (int p = 0; p < n && offender < 0; p++) if (!java.util.Arrays.equals(all[p], all[best])) offender = p;
        }
        int offenderWorld = team.worldRank(offender);
        StringBuilder sb = new StringBuilder();
        if (failed(all[offender])) {
            sb.append(note(offenderWorld, all[offender][2], all[offender][1]));
            sb.append("; so no rank ran it (call #").append(all[offender][0]).append(" of the team)");
        } else {
            int reference = referenceFor(all, offender);
            sb.append("collective call mismatch: rank ")
                    .append(offenderWorld)
                    .append(" made a different call (")
                    .append(difference(team.worldRank(reference), all[reference], offenderWorld, all[offender]))
                    .append("); every member must make the same collective calls in the same order");
        }
        sb.append(". Calls by rank:");
        for (int p = 0; p < n; p++)
            sb.append(p == 0 ? " " : "; ")
                    .append(team.worldRank(p))
                    .append(": ")
                    .append(describe(all[p]));
        String opName = op == Op.INTERNAL_BARRIER ? OPS[(int) all[team.rank()][2]].label : op.label;
        return new CallMismatchException(opName, offenderWorld, opName + " on rank " + worldRank + " failed: " + sb);
    }

    private String note(int rank, long id, long code) {
        String label = OPS[(int) (code >>> 8)].label;
        if (rank == worldRank) return "this rank rejected its own arguments to " + label;
        try {
            return new String(store.get(noteKey(rank, id), noteWait), StandardCharsets.UTF_8);
        } catch (CommException e) {
            return "rank " + rank + " rejected its own arguments to " + label + " (its message did not arrive: "
                    + e.getMessage() + ")";
        }
    }

    /** A member whose call is not the offender's: the one the offender is compared with. */
    private static int referenceFor(long[][] all, int offender) {
        for (int p = 0; p < all.length; p++) if (!java.util.Arrays.equals(all[p], all[offender])) return p;
        return offender == 0 ? Math.min(1, all.length - 1) : 0;
    }

    /** What differs between two members' calls, in words: "dtype: rank 0 passed BF16, rank 2 passed FP32". */
    static String difference(int refRank, long[] ref, int offRank, long[] off) {
        String r = "rank " + refRank, o = "rank " + offRank;
        if (ref[1] < 0 || off[1] < 0 || (ref[1] >>> 8) != (off[1] >>> 8))
            return "call: " + r + " called " + name(ref) + ", " + o + " called " + name(off);
        if (ref[0] != off[0])
            return "call number: " + r + " is at call #" + ref[0] + " of the team, " + o + " at #" + off[0];
        if ((ref[1] & CARRIED) != (off[1] & CARRIED))
            return "how the data travels: " + r
                    + (((ref[1] & CARRIED) != 0) ? " carried it in the agreement" : " sent it separately") + ", " + o
                    + (((off[1] & CARRIED) != 0) ? " carried it in the agreement" : " sent it separately");
        int op = (int) (ref[1] >>> 8);
        if (op == Op.INTERNAL_BARRIER.ordinal()) return "enclosing call: " + describe(ref) + " vs " + describe(off);
        String d = CallWords.differences(OPS[op].fields, ref, off, r, o);
        return d.isEmpty() ? "other arguments" : d;
    }

    private static String name(long[] w) {
        if (w[1] < 0) return "no agreed call";
        int op = (int) (w[1] >>> 8);
        return op < OPS.length ? OPS[op].label : "unknown call " + op;
    }

    private static boolean failed(long[] w) {
        return w[1] >= 0 && (w[1] & FAILED) != 0;
    }

    private static String describe(long[] w) {
        if (w[1] < 0) return "no agreed call (it passed a barrier the API did not issue)";
        int op = (int) (w[1] >>> 8);
        String name = op < OPS.length ? OPS[op].label : "unknown call " + op;
        StringBuilder sb = new StringBuilder(name).append(" #").append(w[0]);
        if (failed(w)) return sb.append(" (rejected its arguments)").toString();
        if ((w[1] & CARRIED) != 0) sb.append(" carrying its data");
        if (op == Op.INTERNAL_BARRIER.ordinal())
            return sb.append(" within ")
                    .append(OPS[(int) w[2]].label)
                    .append(" #")
                    .append(w[3])
                    .toString();
        String args = CallWords.describe(OPS[op].fields, w);
        return args.isEmpty()
                ? sb.toString()
                : sb.append(" (").append(args).append(')').toString();
    }

    /** Key arguments of a call, packed into the two words every member must share. */
    static long[] args(long a, long b) {
        return new long[] {a, b};
    }

    static long[] none() {
        return new long[2];
    }

    /** A call's dtype and a second small value (a root, or an enum such as the reduce op): {@link CallWords#DTYPE} and the field after it. */
    static long pack(Enum<?> dtype, long second) {
        return CallWords.code(dtype) | second << 8;
    }

    static long pack(Enum<?> dtype, Enum<?> second) {
        return pack(dtype, CallWords.code(second));
    }

    static long pack(Enum<?> dtype) {
        return CallWords.code(dtype);
    }
}
