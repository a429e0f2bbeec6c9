package dev.unicomm.collectives;

/** How a vector of elements is cut into one chunk per team member. */
final class Chunks {
    private Chunks() {}

    /**
     * Boundaries of {@code n} nearly equal chunks of {@code count} elements: chunk {@code j} is
     * {@code [b[j], b[j+1])}. Chunk sizes are whole 64-byte lines where possible (so two members
     * never write the same cache line), the last chunks take what is left and may be empty.
     */
    static long[] split(long count, int n, int elementBytes) {
        long perLine = Math.max(1, 64 / elementBytes);
        long per = (count + n - 1) / n;
        per = (per + perLine - 1) / perLine * perLine;
        long[] b = new long[n + 1];
        for (int j = 0; j <= n; j++) b[j] = Math.min(count, per * j);
        return b;
    }
}
