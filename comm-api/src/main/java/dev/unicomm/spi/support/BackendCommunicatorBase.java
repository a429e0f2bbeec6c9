package dev.unicomm.spi.support;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;

/**
 * What every backend communicator holds the same way: this PE's rank and the job's size, fixed at open,
 * and the heap, RMA engine and world team it hands out. Those three often need the communicator itself to be
 * built, so the subclass's constructor makes them and passes them to {@link #parts} before it returns.
 *
 * @param <H> the backend's heap
 * @param <R> the backend's RMA engine
 * @param <T> the backend's team
 */
public abstract class BackendCommunicatorBase<H extends SymmetricHeap, R extends Rma, T extends Team>
        implements BackendCommunicator {
    private final int rank;
    private final int size;
    private H heap;
    private R rma;
    private T world;

    /**
     * @param rank this PE's world rank
     * @param size the number of PEs in the job
     */
    protected BackendCommunicatorBase(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    /**
     * Sets the heap, the RMA engine and the world team; once, from the subclass's constructor.
     *
     * @throws IllegalStateException if they were already set
     */
    protected final void parts(H heap, R rma, T world) {
        if (this.heap != null) throw new IllegalStateException("the communicator's parts are already set");
        if (heap == null || rma == null || world == null)
            throw new IllegalArgumentException("heap, rma and world must not be null");
        this.heap = heap;
        this.rma = rma;
        this.world = world;
    }

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final int size() {
        return size;
    }

    @Override
    public final H heap() {
        return heap;
    }

    @Override
    public final R rma() {
        return rma;
    }

    @Override
    public final T world() {
        return world;
    }

    /** Host memory only; device backends that also take their device's memory override it. */
    @Override
    public boolean acceptsLocal(MemoryKind kind) {
        return kind.isHost();
    }
}
