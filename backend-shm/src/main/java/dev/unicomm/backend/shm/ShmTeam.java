package dev.unicomm.backend.shm;

import dev.unicomm.api.CommException;
import dev.unicomm.api.Team;
import dev.unicomm.spi.support.RankListTeam;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * A team over shared memory. Its barrier is a dissemination barrier: in round {@code k} team rank
 * {@code i} writes the barrier's epoch into a flag of team rank {@code i + 2^k} (mod size) and waits
 * for its own round-{@code k} flag to reach the epoch; {@code ceil(log2 size)} rounds, one cache-line
 * transfer each. Epochs only grow, so a fast PE that already entered the next barrier cannot be
 * confused with a slow one. The flags live in a <em>team slot</em> of every member's control area;
 * a split picks, by agreement over the parent team, a slot that is free on all parent members.
 *
 * <p>Not thread-safe: call a team's collectives from one thread per PE, in the same order on every member.
 */
final class ShmTeam extends RankListTeam {
    private final ShmCommunicator comm;
    private final int slot;
    /** Control areas of the members, by team rank. */
    private final MemorySegment[] controls;
    /** Every member's agreement payload entry, by exchange parity then team rank (made once: exchanges allocate nothing). */
    private final MemorySegment[][] payloadViews;

    private long epoch;
    private long splitSeq;
    private long exchanges;
    private boolean open = true;
    /** The barrier's current wait, reused (one thread per team): exchange number, round, and whom it waits for. */
    private final Waiter.Wait waitState = new Waiter.Wait();

    private long waitCall;
    private int waitRound, waitFrom;
    private final Supplier<String> waitWhat = this::describeWait;
    /** {@link #slowest()} as the waiter's culprit, made once. */
    private final IntSupplier slowest = this::slowest;

    ShmTeam(ShmCommunicator comm, int[] members, int me, int slot) {
        super(members, me);
        this.comm = comm;
        this.slot = slot;
        this.controls = new MemorySegment[members.length];
        for (int i = 0; i < members.length; i++) controls[i] = comm.control(members[i]);
        this.payloadViews = new MemorySegment[2][members.length];
        for (int parity = 0; parity < 2; parity++)
            for (int i = 0; i < members.length; i++)
                payloadViews[parity][i] = controls[i]
                        .asSlice(Control.agreePayload(slot, parity), Control.PAYLOAD_BYTES)
                        .asReadOnly();
    }

    int slot() {
        return slot;
    }

    /** {@inheritDoc} Also completes this PE's RMA: a full fence precedes the first flag write. */
    @Override
    public void barrier() {
        barrier(0);
    }

    /** The barrier; {@code call > 0}: it carries agreement exchange {@code call} (for timeout messages and blame). */
    private void barrier(long call) {
        int n = size();
        VarHandle.fullFence();
        if (n == 1) return;
        comm.waiter().checkBroken();
        long e = ++epoch;
        MemorySegment mine = controls[rank()];
        for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
            long flag = Control.roundFlag(slot, k);
            Words.setRelease(controls[(rank() + dist) % n], flag, e);
            Waiter.Wait w = null;
            for (int polls = 1; Words.getAcquire(mine, flag) < e; polls++) {
                if (polls <= comm.waiter().freeSpins) {
                    Thread.onSpinWait();
                } else {
                    if (w == null) { // the wait's state and description are reused: a barrier allocates nothing
                        waitCall = call;
                        waitRound = k;
                        waitFrom = worldRank(((rank() - dist) % n + n) % n);
                        comm.waiter().checkBroken();
                        w = waitState.restart();
                    }
                    w = comm.waiter().idle(w, waitWhat, slowest);
                }
            }
        }
    }

    /** What the barrier now waits for, for timeout messages (from {@link #waitCall}, {@link #waitRound}, {@link #waitFrom}). */
    private String describeWait() {
        return "barrier of a team of " + size() + " PEs ("
                + (waitCall > 0
                        ? "collective call #" + waitCall + ": " + laggards(waitCall)
                        : "round " + waitRound + ", waiting for world rank " + waitFrom)
                + "; furthest behind: world rank " + slowest() + ")";
    }

    /**
     * A barrier that carries {@code words.length} (at most 4) words from every member: each member
     * writes them into its own agreement mailbox, passes the barrier, then reads every member's.
     * Double-buffered by exchange number; a member writes exchange k+2 only after the barrier of
     * k+1, which nobody passes before every member has read exchange k. A member that passed this
     * barrier inside another one (not an exchange) shows up as {@code {-1, -1, its exchange number,
     * ours}}. On timeout the message names the members that never reached this exchange.
     */
    long[][] exchange(long[] words) {
        long[][] all = new long[size()][words.length];
        exchange(words, all, null, 0, null);
        return all;
    }

    /**
     * {@link #exchange(long[])} into {@code all} (by team rank), also carrying {@code payload[0, bytes)}
     * in this member's payload entry for the exchange (double-buffered and safe to read for the same
     * reason as the words); {@code inputs[i]} then views member {@code i}'s entry.
     */
    void exchange(long[] words, long[][] all, MemorySegment payload, long bytes, MemorySegment[] inputs) {
        requireMember("exchange");
        if (bytes < 0 || bytes > Control.PAYLOAD_BYTES)
            throw new IllegalArgumentException(
                    "an agreement exchange carries 0.." + Control.PAYLOAD_BYTES + " bytes, not " + bytes);
        long s = ++exchanges;
        long box = Control.agreeMailbox(slot, s);
        MemorySegment mine = controls[rank()];
        if (payload != null) MemorySegment.copy(payload, 0, mine, Control.agreePayload(slot, s), bytes);
        for (int i = 0; i < words.length; i++) Words.setPlain(mine, box + 8 + 8L * i, words[i]);
        Words.setRelease(mine, box, s);
        barrier(s);
        for (int i = 0; i < size(); i++) {
            long[] w = all[i];
            long theirs = Words.getAcquire(controls[i], box);
            if (theirs != s) {
                w[0] = -1;
                w[1] = -1;
                w[2] = theirs;
                w[3] = s;
                continue;
            }
            for (int k = 0; k < words.length; k++) w[k] = Words.getPlain(controls[i], box + 8 + 8L * k);
        }
        if (inputs != null) {
            MemorySegment[] views = payloadViews[(int) (s & 1)];
            System.arraycopy(views, 0, inputs, 0, size());
        }
    }

    /** Who had not reached exchange {@code s} (the others wait on them), for the timeout message. */
    private String laggards(long s) {
        long box = Control.agreeMailbox(slot, s);
        StringBuilder late = new StringBuilder();
        for (int i = 0; i < size(); i++) {
            if (Words.getAcquire(controls[i], box) == s) continue;
            long other = Math.max(
                    Words.getAcquire(controls[i], box),
                    Words.getAcquire(controls[i], Control.agreeMailbox(slot, s - 1)));
            late.append(late.length() == 0 ? "" : ", ")
                    .append("world rank ")
                    .append(worldRank(i))
                    .append(" (last reached #")
                    .append(Math.max(other, 0))
                    .append(')');
        }
        return late.length() == 0 ? "every member arrived" : "not reached by " + late;
    }

    /**
     * World rank of the member that is furthest behind, to blame when a barrier times out: the one
     * that has written the least barrier progress. Member j writes round k's flag (the barrier epoch)
     * at member j + 2^k, so the sum of those flags orders members by (epoch, rounds done in it).
     */
    private int slowest() {
        int n = size(), best = rank();
        long bestSum = Long.MAX_VALUE;
        for (int j = 0; j < n; j++) {
            long sum = 0;
            for (int k = 0, dist = 1; dist < n; k++, dist <<= 1)
                sum += Words.getAcquire(controls[(j + dist) % n], Control.roundFlag(slot, k));
            if (sum < bestSum) {
                bestSum = sum;
                best = j;
            }
        }
        return worldRank(best);
    }

    @Override
    public Team split(int start, int stride, int size) {
        requireMember("split");
        int[] picked = pick(start, stride, size);
        int[] slots = agreeOnFreeSlots(1);
        return newTeam(picked, indexOf(picked, comm.rank()), slots[0]);
    }

    @Override
    public Split2d split2d(int xRange) {
        requireMember("split2d");
        Grid g = grid(xRange);
        int[] slots = agreeOnFreeSlots(2);
        return new Split2d(newTeam(g.rowMembers(), g.col(), slots[0]), newTeam(g.colMembers(), g.row(), slots[1]));
    }

    private ShmTeam newTeam(int[] worldRanks, int myIndex, int teamSlot) {
        if (myIndex < 0) return new ShmTeam(comm, worldRanks, -1, -1);
        comm.claimSlot(teamSlot);
        return new ShmTeam(comm, worldRanks, myIndex, teamSlot);
    }

    /**
     * Every parent member publishes its free-slot mask, then a barrier, then each ANDs all masks and
     * takes the lowest free slots: the same answer everywhere. The mailbox is double-buffered by
     * split number; the next split's barrier keeps a fast PE from overwriting what a slow one reads.
     */
    private int[] agreeOnFreeSlots(int count) {
        long seq = ++splitSeq;
        long box = Control.splitMailbox(slot, seq);
        MemorySegment mine = controls[rank()];
        Words.setPlain(mine, box + 8, comm.freeSlotMask());
        Words.setRelease(mine, box, seq);
        barrier();
        long mask = -1L;
        for (int i = 0; i < size(); i++) {
            long theirSeq = Words.getAcquire(controls[i], box);
            if (theirSeq != seq)
                throw new IllegalStateException("team split out of step: world rank " + worldRank(i) + " is at split #"
                        + theirSeq + " of this team while rank " + comm.rank() + " is at #" + seq
                        + "; every member must call split/split2d in the same order");
            mask &= Words.getPlain(controls[i], box + 8);
        }
        int[] slots = new int[count];
        for (int i = 0; i < count; i++) {
            if (mask == 0)
                throw new CommException("too many teams: each PE can hold " + (Control.TEAM_SLOTS - 1)
                        + " open teams besides the world (close teams you no longer need)");
            slots[i] = Long.numberOfTrailingZeros(mask);
            mask &= mask - 1;
        }
        return slots;
    }

    private void requireMember(String op) {
        if (rank() < 0)
            throw new IllegalStateException("this PE is not a member of the team; only members may call " + op);
    }

    /** Collective over the team: a last barrier, then each member clears its flags and frees the slot. */
    @Override
    public void close() {
        if (!open) return;
        open = false;
        if (rank() < 0) return;
        barrier();
        // After the barrier no member writes this slot on this PE again, so clearing is race-free.
        controls[rank()].asSlice(Control.slot(slot), Control.SLOT_BYTES).fill((byte) 0);
        VarHandle.fullFence();
        comm.releaseSlot(slot);
    }

    @Override
    public String toString() {
        return "Team[rank " + rank() + " of " + size() + ", world ranks " + membersText() + "]";
    }
}
