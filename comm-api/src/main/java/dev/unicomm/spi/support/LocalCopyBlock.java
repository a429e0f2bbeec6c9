package dev.unicomm.spi.support;

import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A block of a host heap of which only this PE's own copy is load/store reachable: the other PEs'
 * copies are across a network and reached through RMA only (so {@link #peer(int)} is empty for them).
 */
public abstract class LocalCopyBlock extends HeapBlock {
    private final MemorySegment local;
    private final int rank;

    /**
     * @param offset the block's offset in the symmetric heap
     * @param local this PE's copy of the block (its size is the block's)
     * @param rank this PE's world rank
     */
    protected LocalCopyBlock(long offset, MemorySegment local, int rank) {
        super(offset, local.byteSize());
        this.local = local;
        this.rank = rank;
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return local.address();
    }

    @Override
    public MemorySegment segment() {
        return local;
    }

    /** This PE's copy for its own rank; empty for the others. */
    @Override
    public Optional<MemorySegment> peer(int pe) {
        return pe == rank ? Optional.of(local) : Optional.empty();
    }
}
