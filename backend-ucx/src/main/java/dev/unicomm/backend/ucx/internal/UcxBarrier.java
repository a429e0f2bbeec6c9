package dev.unicomm.backend.ucx.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * The world barrier over UCX itself: a dissemination barrier of {@code ceil(log2 n)} rounds of 8-byte tagged messages
 * on the communicator's worker (round {@code k}: send to PE {@code (r + 2^k) mod n}, receive from {@code (r - 2^k) mod
 * n}). It replaces a meeting in the TCP rendezvous store, whose round trips through rank 0's store server were the
 * largest cost of the MoE loop across two hosts.
 *
 * <p>Each tag carries a marker, the round, the sender and the barrier's sequence number (receives match the whole
 * tag), so a message that arrives early (UCX keeps it in its unexpected queue) is taken only by the receive of its own
 * barrier and round: a PE may already be in barrier {@code n + 1} while its neighbour still waits in barrier {@code n}.
 *
 * <p>Waits progress the worker from the calling thread ({@link UcxWorker#enterWait}), check the job's health, and end at
 * one deadline per barrier (the job timeout). A round-0 timeout names the PE that never arrived, as an RMA timeout does
 * ({@link UcxWorker#onPeerTimeout}: the job fails naming it); in later rounds the PE waited for may itself be waiting for
 * the late one, so the timeout names no one. A receive that did not complete is cancelled before it is freed; the
 * buffers live as long as the worker ({@link #release} after it is destroyed), so a message that lands after a failed
 * barrier writes into live memory.
 */
final class UcxBarrier {
    /** Tag bits: marker (4) | round (6) | sender rank (22) | sequence number (32). */
    private static final long MARKER = 0xBL << 60;

    static final int MAX_RANKS = 1 << 22;

    private final UcxWorker w;
    private final Ucp ucp;
    private final Peers peers;
    private final int rank;
    private final int size;
    private final int rounds;
    private final Duration timeout;
    private final Runnable health;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment param; // ucp_request_param_t without fields: contiguous bytes, no callback
    private final MemorySegment sendWords; // one word per round: what round k sent (its sequence number)
    private final MemorySegment recvWords; // one word per round
    private long sequence;

    UcxBarrier(UcxWorker w, Peers peers, int rank, int size, Duration timeout, Runnable health) {
        if (size > MAX_RANKS)
            throw new IllegalArgumentException("backend ucx supports at most " + MAX_RANKS
                    + " PEs (its barrier tags carry a 22-bit rank), got " + size);
        this.w = w;
        this.ucp = w.ucp;
        this.peers = peers;
        this.rank = rank;
        this.size = size;
        this.rounds = 32 - Integer.numberOfLeadingZeros(size - 1); // ceil(log2 size); 0 for one PE
        this.timeout = timeout;
        this.health = health;
        this.param = arena.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
        this.sendWords = arena.allocate(8L * Math.max(1, rounds), 8);
        this.recvWords = arena.allocate(8L * Math.max(1, rounds), 8);
    }

    /** The tag of round {@code round} of barrier {@code seq} sent by PE {@code sender}. */
    static long tag(long seq, int round, int sender) {
        return MARKER | ((long) round << 54) | ((long) sender << 32) | (seq & 0xFFFF_FFFFL);
    }

    /** Meets every PE (the caller completed its RMA first). One barrier at a time per PE: the words are shared. */
    synchronized void await() {
        long seq = sequence++;
        long deadline = System.nanoTime() + timeout.toNanos();
        w.enterWait(); // the whole barrier: the progress thread stays off the worker between rounds too
        try {
            for (int k = 0; k < rounds; k++) {
                int to = (int) ((rank + (1L << k)) % size);
                int from = (int) (((rank - (1L << k)) % size + size) % size);
                long in = recvWords.address() + 8L * k;
                recvWords.set(ValueLayout.JAVA_LONG, 8L * k, -1L);
                // Receive first: the peer's message usually finds it posted (no unexpected-queue copy).
                MemorySegment recv = ucp.tagRecv(w.worker, in, 8, tag(seq, k, from), -1L, param);
                String call = "barrier " + seq + " round " + k + ": ucp_tag_recv_nbx";
                try {
                    send(seq, k, to, deadline);
                } catch (RuntimeException e) {
                    abandon(recv);
                    throw e;
                }
                w.awaitUntil(recv, call, from, k == 0, true, timeout, deadline, health);
                long got = recvWords.get(ValueLayout.JAVA_LONG, 8L * k);
                if (got != seq)
                    throw new IllegalStateException("barrier " + seq + " round " + k + " on PE " + rank
                            + " received word " + got + " from PE " + from + " (tag matching broken)");
            }
        } finally {
            w.exitWait();
        }
    }

    private void send(long seq, int k, int to, long deadline) {
        String call = "barrier " + seq + " round " + k + ": ucp_tag_send_nbx";
        byte f = peers.failure(to);
        if (f != 0) throw Ucx.failure(ucp, f, call, to, health);
        // Wait for local completion: the word is reused by this round of the next barrier.
        sendWords.set(ValueLayout.JAVA_LONG, 8L * k, seq);
        MemorySegment req = ucp.tagSend(peers.ep(to), sendWords.address() + 8L * k, 8, tag(seq, k, rank), param);
        w.awaitUntil(req, call, to, true, false, timeout, deadline, health);
    }

    /** Cancels and frees a receive that will not be waited for. */
    private void abandon(MemorySegment recv) {
        long p = recv.address();
        if (p == 0 || UcpAbi.isError(p)) return;
        ucp.requestCancel(w.worker, recv);
        ucp.requestFree(recv);
    }

    /** Frees the words and the parameter struct: after the worker is destroyed (nothing can write into them then). */
    void release() {
        arena.close();
    }

    @Override
    public String toString() {
        return "UcxBarrier[PE " + rank + "/" + size + ", " + rounds + " rounds, next " + sequence + "]";
    }
}
