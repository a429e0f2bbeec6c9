package dev.unicomm.conformance.planted;

import dev.unicomm.api.SymmetricBuffer;
import java.util.ArrayList;
import java.util.List;

/** The buffers the heap has handed out and not freed, to find what now lives at a heap address. */
final class LiveBuffers {
    private final List<SymmetricBuffer> buffers = new ArrayList<>();

    synchronized void add(SymmetricBuffer b) {
        buffers.removeIf(x -> !x.isOpen());
        buffers.add(b);
    }

    /** {@code dst} while it is open, else the open buffer that now holds byte {@code offset} of where {@code dst} was; null if none. */
    synchronized SymmetricBuffer at(SymmetricBuffer dst, long offset) {
        if (dst.isOpen()) return dst;
        long abs = dst.offset() + offset;
        for (SymmetricBuffer b : buffers)
            if (b.isOpen() && b.offset() <= abs && abs < b.offset() + b.byteSize()) return b;
        return null;
    }
}
