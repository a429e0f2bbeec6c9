package dev.unicomm.api;

/** The symmetric heap cannot hold an allocation; says how much was asked and how much is free. */
public final class OutOfSymmetricMemoryException extends CommException {
    public OutOfSymmetricMemoryException(long requested, long alignment, long capacity, long used) {
        super("symmetric heap exhausted: asked for " + requested + " bytes (alignment " + alignment
                + "), heap capacity " + capacity + " bytes, " + used + " in use; raise the heap size "
                + "(unicomm.heap.size / UNICOMM_HEAP_SIZE) or free buffers");
    }
}
