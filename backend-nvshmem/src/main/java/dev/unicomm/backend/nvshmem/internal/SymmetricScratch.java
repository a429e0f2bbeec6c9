package dev.unicomm.backend.nvshmem.internal;

/**
 * Symmetric scratch of one communicator (same offsets on every PE): the call agreement's areas,
 * alltoallv's offsets and counts, and room for in-place collectives' sources.
 */
record SymmetricScratch(
        long base, long agreeSrc, long agreeDst, long offsetsSend, long offsetsRecv, long data, long dataBytes) {
    static SymmetricScratch layout(long base, int size, long dataBytes) {
        long agreeSrc = base, agreeDst = base + 64;
        long offsetsSend = align(agreeDst + 32L * size), offsetsRecv = align(offsetsSend + 16L * size);
        long data = align(offsetsRecv + 16L * size);
        return new SymmetricScratch(base, agreeSrc, agreeDst, offsetsSend, offsetsRecv, data, dataBytes);
    }

    long totalBytes() {
        return data - base + dataBytes;
    }

    private static long align(long v) {
        return (v + 255) & ~255L;
    }
}
