package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;

/**
 * The last resource of a worker's {@code try}: closed first, it aborts the job unless the body
 * reached {@link #done}. Without it a rank that throws closes its buffers first, and on a backend
 * whose frees are collective (NVSHMEM) it then waits in them for peers that wait for it in the next
 * operation, until the communicator's timeout; with it every rank's pending call ends at once with
 * a {@code CommAbortedException} and the bench reports the failed rank.
 */
final class AbortOnFailure implements AutoCloseable {
    private final Communicator comm;
    private final String where;
    private boolean done;

    AbortOnFailure(Communicator comm, String where) {
        this.comm = comm;
        this.where = where;
    }

    /** The body finished: closing aborts nothing. */
    void done() {
        done = true;
    }

    @Override
    public void close() {
        if (!done) comm.abort("rank " + comm.rank() + " failed in " + where + " (its error follows in its output)");
    }
}
