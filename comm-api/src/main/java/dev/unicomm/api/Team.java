package dev.unicomm.api;

/**
 * An ordered subset of the world's PEs (OpenSHMEM teams). Team ranks run from 0 to
 * {@link #size()}-1; RMA takes world ranks, so translate with {@link #worldRank(int)}.
 * Splits are <em>collective</em> over the parent team. Closing a team is collective over it;
 * the world team cannot be closed.
 */
public interface Team extends AutoCloseable {

    /** This PE's rank in the team, or {@code -1} if it is not a member. */
    int rank();

    /** Number of PEs in the team. */
    int size();

    /** World rank of team rank {@code teamRank}. */
    int worldRank(int teamRank);

    /**
     * Team rank in {@code dest} of this team's rank {@code teamRank}, or {@code -1} if that PE is not
     * in {@code dest} ({@code shmem_team_translate_pe}).
     */
    default int translate(int teamRank, Team dest) {
        int world = worldRank(teamRank);
        for (int r = 0; r < dest.size(); r++) {
            if (dest.worldRank(r) == world) return r;
        }
        return -1;
    }

    /**
     * Team of the parent ranks {@code start, start+stride, …} ({@code size} of them), collective over
     * this team. PEs outside the new team get a team with {@code rank() == -1}.
     */
    Team split(int start, int stride, int size);

    /**
     * Splits this team into a 2D grid of {@code xRange} columns ({@code shmem_team_split_2d}):
     * {@code x()} holds the PEs of this PE's row, {@code y()} those of its column. Collective.
     */
    Split2d split2d(int xRange);

    /**
     * Completes this PE's outstanding RMA (as {@link Rma#quiet()}), then blocks until every member has
     * called it (collective over the team; docs/spec/semantics.md §2.6).
     */
    void barrier();

    /**
     * A barrier over the team ordered on {@code stream} (NVSHMEM's / Ascend SHMEM's
     * {@code *_barrier_on_stream}): device backends enqueue it and return at once; it completes, in
     * stream order, once every member's barrier has been reached, and this PE's RMA issued before it
     * is complete. Collective over the team. The default, for backends without device streams,
     * waits for {@code stream} and then runs {@link #barrier()}.
     *
     * @param stream a stream of the communicator's device runtime (or a wrapped framework stream)
     */
    default void barrier(Stream stream) {
        stream.synchronize();
        barrier();
    }

    /** Frees the team (collective over it). */
    @Override
    void close();

    /** Result of {@link #split2d(int)}. */
    record Split2d(Team x, Team y) {}
}
