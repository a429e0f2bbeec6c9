package dev.unicomm.spi.support;

import dev.unicomm.api.SymmetricBuffer;

/**
 * The bookkeeping every backend's symmetric buffer repeats: its heap offset, its size, whether it is
 * still open, and the rule that it is freed once. A subclass gives the memory ({@code kind},
 * {@code address}, {@code segment}, {@code peer}) and returns the block to its heap in {@link #free()}.
 */
public abstract class HeapBlock implements SymmetricBuffer {
    private final long offset;
    private final long bytes;
    private volatile boolean open = true;

    /**
     * @param offset the block's offset in the symmetric heap (the same on every PE)
     * @param bytes the block's size
     */
    protected HeapBlock(long offset, long bytes) {
        this.offset = offset;
        this.bytes = bytes;
    }

    @Override
    public final long offset() {
        return offset;
    }

    @Override
    public final boolean isOpen() {
        return open;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    /**
     * Marks the block freed, then {@link #free()}s it.
     *
     * @throws IllegalStateException if it was already freed
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!open)
                throw new IllegalStateException("symmetric buffer at heap offset " + offset + " was already freed");
            open = false;
        }
        free();
    }

    /** Returns the block to its heap (collective where the heap's free is); called once, by {@link #close()}. */
    protected abstract void free();

    /** Marks the block freed without {@link #free()} (its heap already let it go, or is closing). */
    protected final void invalidate() {
        open = false;
    }

    /**
     * For accessors that must not hand out memory of a freed block.
     *
     * @throws IllegalStateException if the block was freed
     */
    protected final void requireOpen() {
        if (!open) throw new IllegalStateException("symmetric buffer at heap offset " + offset + " was freed");
    }

    /** What {@link #toString()} adds after offset and size, each part starting with {@code ", "}; none here. */
    protected String details() {
        return "";
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[offset=" + offset + ", bytes=" + bytes + details() + "]";
    }
}
