package dev.unicomm.backend.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * 64-bit atomic access to words of a shared mapping. The JIT turns these into plain x86-64
 * instructions ({@code mov}, {@code lock xadd}, {@code lock cmpxchg}, {@code xchg}); they are atomic
 * across processes because every process maps the same physical pages. Offsets must be 8-byte
 * aligned (the heap and the control area guarantee it).
 */
final class Words {
    private Words() {}

    /** Coordinates: (MemorySegment segment, long offset). */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    static long getAcquire(MemorySegment s, long off) {
        return (long) LONG.getAcquire(s, off);
    }

    static long getVolatile(MemorySegment s, long off) {
        return (long) LONG.getVolatile(s, off);
    }

    static void setRelease(MemorySegment s, long off, long v) {
        LONG.setRelease(s, off, v);
    }

    static void setVolatile(MemorySegment s, long off, long v) {
        LONG.setVolatile(s, off, v);
    }

    static void setPlain(MemorySegment s, long off, long v) {
        LONG.set(s, off, v);
    }

    static long getPlain(MemorySegment s, long off) {
        return (long) LONG.get(s, off);
    }

    static long getAndAdd(MemorySegment s, long off, long delta) {
        return (long) LONG.getAndAdd(s, off, delta);
    }

    static long getAndSet(MemorySegment s, long off, long v) {
        return (long) LONG.getAndSet(s, off, v);
    }

    static long compareAndExchange(MemorySegment s, long off, long expected, long desired) {
        return (long) LONG.compareAndExchange(s, off, expected, desired);
    }
}
