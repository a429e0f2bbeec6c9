package dev.unicomm.api;

/**
 * A PE's symmetric heap. Allocation is <em>collective</em>: every PE of the communicator calls
 * {@link #allocate} with the same size and alignment in the same order and gets a buffer at the
 * same heap offset, so an offset valid here is valid on every PE.
 */
public interface SymmetricHeap {

    /** Default alignment of {@link #allocate(long)}: 64 bytes (a cache line). */
    long DEFAULT_ALIGNMENT = 64;

    /**
     * Allocates {@code bytes} on every PE (collective).
     *
     * @throws IllegalArgumentException if {@code bytes < 0}, or PEs asked for different sizes
     * @throws OutOfSymmetricMemoryException if the heap cannot hold it
     */
    default SymmetricBuffer allocate(long bytes) {
        return allocate(bytes, DEFAULT_ALIGNMENT);
    }

    /**
     * Allocates {@code bytes} aligned to {@code alignment} (a power of two) on every PE (collective).
     *
     * @throws IllegalArgumentException if the size is negative, the alignment not a power of two,
     *                                  or PEs disagree on size or alignment
     * @throws OutOfSymmetricMemoryException if the heap cannot hold it
     */
    SymmetricBuffer allocate(long bytes, long alignment);

    /** Total heap size per PE in bytes. */
    long capacity();

    /** Bytes currently allocated (including alignment padding). */
    long used();

    /** Where this heap's memory lives. */
    MemoryKind kind();
}
