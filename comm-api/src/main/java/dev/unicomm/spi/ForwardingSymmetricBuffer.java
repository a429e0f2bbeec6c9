package dev.unicomm.spi;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A {@link SymmetricBuffer} that passes every call to another one: the base of a backend that changes what
 * happens around a buffer (completing its engine's RMA before {@link #close()}, a test double). A backend
 * that hands these out must unwrap them ({@link #delegate()}) before passing them to the backend it reuses.
 */
public class ForwardingSymmetricBuffer implements SymmetricBuffer {
    private final SymmetricBuffer delegate;

    /** @param delegate the buffer every call goes to unless overridden */
    public ForwardingSymmetricBuffer(SymmetricBuffer delegate) {
        if (delegate == null) throw new IllegalArgumentException("delegate must not be null");
        this.delegate = delegate;
    }

    /** The buffer calls go to. */
    public final SymmetricBuffer delegate() {
        return delegate;
    }

    @Override
    public MemoryKind kind() {
        return delegate.kind();
    }

    @Override
    public long address() {
        return delegate.address();
    }

    @Override
    public long byteSize() {
        return delegate.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return delegate.segment();
    }

    @Override
    public long offset() {
        return delegate.offset();
    }

    @Override
    public boolean isOpen() {
        return delegate.isOpen();
    }

    @Override
    public Optional<MemorySegment> peer(int pe) {
        return delegate.peer(pe);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
