package dev.unicomm.backend.ucx.hosts;

/** Pure Java work that never calls unicomm: a target rank that "computes". */
final class Busy {
    private Busy() {}

    private static final java.lang.invoke.VarHandle WORD = java.lang.foreign.ValueLayout.JAVA_LONG.varHandle();
    static volatile long sink;

    /** Computes for {@code millis} ms (an LCG, so the JIT cannot drop it). */
    static void spin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L, x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }

    /** Computes until the 64-bit word at {@code flag[offset]} is non-zero (checked every ~10 ms with a volatile load, not a unicomm call), at most {@code millis} ms. */
    static void spinUntil(java.lang.foreign.MemorySegment flag, long offset, long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end && (long) WORD.getVolatile(flag, offset) == 0) spin(10);
    }
}
