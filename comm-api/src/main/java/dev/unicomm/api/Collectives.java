package dev.unicomm.api;

/**
 * Collectives over a team, on symmetric buffers (NVSHMEM / OpenSHMEM style). Every call is
 * <em>collective</em> over the team: every member calls it with the same counts, types and root.
 * Ranks that disagree get an {@link IllegalArgumentException}, not a silent mis-reduction. Source
 * and destination may be the same buffer (in place) unless stated. Floating-point reductions of
 * BF16 and FP16 accumulate in FP32 and round once.
 *
 * <p>In place ({@code dst == src}), as in NCCL and {@code MPI_IN_PLACE}: {@link #allgather} takes this
 * member's contribution from block {@code rank} of the buffer (where it also belongs in the result),
 * and {@link #reduceScatter} leaves this member's block of the result at block {@code rank} of the
 * buffer. Alltoall and alltoallv cannot run in place.
 */
public interface Collectives {

    /** Barrier over the team. */
    void barrier(Team team);

    /** Copies {@code bytes} from {@code src} on team rank {@code root} into {@code dst} on every member. */
    void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytes, int root);

    /** Concatenates every member's {@code bytesPerPe} of {@code src} into {@code dst}, in team-rank order. */
    void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe);

    /** Element-wise reduction of {@code count} elements of {@code src} over all members into {@code dst}. */
    void allreduce(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op);

    /**
     * Reduces {@code countPerPe * team.size()} elements of {@code src}; member {@code i} gets block
     * {@code i} ({@code countPerPe} elements) of the result in {@code dst}.
     */
    void reduceScatter(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op);

    /** Block {@code j} ({@code bytesPerPe}) of {@code src} on member {@code i} goes to block {@code i} of {@code dst} on member {@code j}. */
    void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe);

    /**
     * Variable all-to-all in bytes: this member sends {@code sendCounts[j]} bytes from
     * {@code src[sendOffsets[j]..]} to member {@code j}, which receives them at
     * {@code dst[recvOffsets[i]..]} where {@code recvCounts[i]} must equal the sender's count.
     */
    void alltoallv(Team team, SymmetricBuffer dst, long[] recvCounts, long[] recvOffsets,
                   SymmetricBuffer src, long[] sendCounts, long[] sendOffsets);
}
