package dev.unicomm.spi;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;

/**
 * A {@link SymmetricHeap} that passes every call to another one: the base of a backend that reuses an
 * existing heap and changes part of it (tracking buffers for its own engine, a test double).
 */
public class ForwardingSymmetricHeap implements SymmetricHeap {
    private final SymmetricHeap delegate;

    /** @param delegate the heap every call goes to unless overridden */
    public ForwardingSymmetricHeap(SymmetricHeap delegate) {
        if (delegate == null) throw new IllegalArgumentException("delegate must not be null");
        this.delegate = delegate;
    }

    /** The heap calls go to. */
    protected final SymmetricHeap delegate() {
        return delegate;
    }

    @Override
    public SymmetricBuffer allocate(long bytes, long alignment) {
        return delegate.allocate(bytes, alignment);
    }

    @Override
    public long capacity() {
        return delegate.capacity();
    }

    @Override
    public long used() {
        return delegate.used();
    }

    @Override
    public MemoryKind kind() {
        return delegate.kind();
    }
}
