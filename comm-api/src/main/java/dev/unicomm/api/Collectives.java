package dev.unicomm.api;

/**
 * Collectives over a team, on symmetric buffers (NVSHMEM / OpenSHMEM style). Every call is
 * <em>collective</em> over the team: every member calls it with the same counts, types and root.
 * Ranks that disagree get an {@link IllegalArgumentException}, not a silent mis-reduction. Source
 * and destination may be the same buffer (in place) unless stated. Floating-point reductions of
 * BF16 and FP16 accumulate in FP32 and round once.
 *
 * <p>Every count is a number of elements of the call's {@link DType} (as NCCL's count + datatype):
 * data movement that is not a reduction may use any type, e.g. {@link DType#UINT8} to move bytes.
 * A barrier is {@link Team#barrier()} (or {@link Communicator#barrier()} for the world team).
 *
 * <p>In place ({@code dst == src}), as in NCCL and {@code MPI_IN_PLACE}: {@link #allgather} takes this
 * member's contribution from block {@code rank} of the buffer (where it also belongs in the result),
 * and {@link #reduceScatter} leaves this member's block of the result at block {@code rank} of the
 * buffer. Alltoall and alltoallv cannot run in place.
 */
public interface Collectives {
    /** Copies {@code count} elements of {@code dtype} from {@code src} on team rank {@code root} into {@code dst} on every member. */
    void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root);

    /** Concatenates every member's {@code countPerPe} elements of {@code src} into {@code dst}, in team-rank order. */
    void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype);

    /** Element-wise reduction of {@code count} elements of {@code src} over all members into {@code dst}. */
    void allreduce(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op);

    /**
     * Reduces {@code countPerPe * team.size()} elements of {@code src}; member {@code i} gets block
     * {@code i} ({@code countPerPe} elements) of the result in {@code dst}.
     */
    void reduceScatter(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op);

    /** Block {@code j} ({@code countPerPe} elements) of {@code src} on member {@code i} goes to block {@code i} of {@code dst} on member {@code j}. */
    void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype);

    /**
     * Variable all-to-all, counted in elements of {@code dtype} like every collective here: this
     * member sends {@code sendCounts[j]} elements from element {@code sendOffsets[j]} of {@code src} to
     * member {@code j}, which receives them at element {@code recvOffsets[i]} of {@code dst}, where
     * {@code recvCounts[i]} must equal the sender's count.
     */
    void alltoallv(
            Team team,
            SymmetricBuffer dst,
            long[] recvCounts,
            long[] recvOffsets,
            SymmetricBuffer src,
            long[] sendCounts,
            long[] sendOffsets,
            DType dtype);

    // Byte-counted forms of 0.1.0 (2026-11-29/30), kept so that code written then still compiles and links;
    // each is the element-counted call with UINT8 elements (one element per byte).

    /**
     * Barrier over the team.
     *
     * @deprecated since 2026-12-01; use {@link Team#barrier()}. To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void barrier(Team team) {
        team.barrier();
    }

    /**
     * Copies {@code bytes} from {@code src} on team rank {@code root} into {@code dst} on every member.
     *
     * @deprecated since 2026-12-01; use {@link #broadcast(Team, SymmetricBuffer, SymmetricBuffer, long, DType, int)}
     *     with a count of elements ({@link DType#UINT8} for bytes). To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytes, int root) {
        broadcast(team, dst, src, bytes, DType.UINT8, root);
    }

    /**
     * Concatenates every member's {@code bytesPerPe} of {@code src} into {@code dst}, in team-rank order.
     *
     * @deprecated since 2026-12-01; use {@link #allgather(Team, SymmetricBuffer, SymmetricBuffer, long, DType)}.
     *     To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe) {
        allgather(team, dst, src, bytesPerPe, DType.UINT8);
    }

    /**
     * Block {@code j} ({@code bytesPerPe}) of {@code src} on member {@code i} goes to block {@code i} of {@code dst} on member {@code j}.
     *
     * @deprecated since 2026-12-01; use {@link #alltoall(Team, SymmetricBuffer, SymmetricBuffer, long, DType)}.
     *     To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe) {
        alltoall(team, dst, src, bytesPerPe, DType.UINT8);
    }

    /**
     * Variable all-to-all with counts and offsets in bytes.
     *
     * @deprecated since 2026-12-01; use
     *     {@link #alltoallv(Team, SymmetricBuffer, long[], long[], SymmetricBuffer, long[], long[], DType)}.
     *     To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void alltoallv(
            Team team,
            SymmetricBuffer dst,
            long[] recvBytes,
            long[] recvOffsets,
            SymmetricBuffer src,
            long[] sendBytes,
            long[] sendOffsets) {
        alltoallv(team, dst, recvBytes, recvOffsets, src, sendBytes, sendOffsets, DType.UINT8);
    }
}
