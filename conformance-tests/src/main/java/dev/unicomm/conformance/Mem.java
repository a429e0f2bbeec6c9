package dev.unicomm.conformance;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.function.LongPredicate;
import org.opentest4j.AssertionFailedError;

/**
 * Helpers for rule bodies: deterministic byte patterns, and reading/writing this PE's own part of a
 * symmetric buffer. Host heaps are accessed directly through {@link SymmetricBuffer#segment()};
 * device heaps through RMA to this PE itself, so the same rule runs on every kind of backend.
 */
public final class Mem {
    private Mem() {}

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** Byte {@code i} of pattern {@code seed}: varies with both, never a run of equal bytes. */
    public static byte pattern(int seed, long i) {
        return (byte) (seed * 131 + i * 7 + (i >>> 8) * 13 + 1);
    }

    /** A new heap segment of {@code n} bytes holding pattern {@code seed}. */
    public static MemorySegment patterned(long n, int seed) {
        return MemorySegment.ofArray(patternBytes(n, seed));
    }

    /** Pattern {@code seed} as an array (a plain loop over an array: fast even before the JIT warms up). */
    static byte[] patternBytes(long n, int seed) {
        byte[] b = new byte[Math.toIntExact(n)];
        for (int i = 0; i < b.length; i++) b[i] = pattern(seed, i);
        return b;
    }

    /**
     * {@code n} bytes whose 8-byte words each hold their own index and {@code seed} ({@code seed << 40 | index},
     * native order; a trailing partial word holds that word's first bytes): a chunk delivered to the wrong
     * place within a transfer shows up, which a short-period byte pattern can miss.
     */
    public static MemorySegment indexed(long n, int seed) {
        MemorySegment s = MemorySegment.ofArray(new byte[Math.toIntExact(n)]);
        long words = n / 8;
        for (long w = 0; w < words; w++) s.set(ValueLayout.JAVA_LONG_UNALIGNED, w * 8, ((long) seed << 40) | w);
        MemorySegment last = longs(((long) seed << 40) | words);
        MemorySegment.copy(last, 0, s, words * 8, n - words * 8);
        return s;
    }

    /** Fails naming the first wrong word, what it holds and where that word belongs, unless {@code s} is {@link #indexed}. */
    public static void expectIndexed(MemorySegment s, int seed, String what) {
        MemorySegment want = indexed(s.byteSize(), seed);
        long first = s.mismatch(want);
        if (first < 0) return;
        long at = first & ~7L;
        long got = at + 8 <= s.byteSize()
                ? s.get(ValueLayout.JAVA_LONG_UNALIGNED, at)
                : s.get(ValueLayout.JAVA_BYTE, first);
        long exp = at + 8 <= s.byteSize()
                ? want.get(ValueLayout.JAVA_LONG_UNALIGNED, at)
                : want.get(ValueLayout.JAVA_BYTE, first);
        String belongs = (got >>> 40) == seed
                ? " (that is word " + (got & 0xff_ffff_ffffL) + " of the source: bytes arrived out of place)"
                : "";
        throw new AssertionFailedError(what + ": byte " + first + " of " + s.byteSize() + " is wrong; the word at " + at
                + " is " + hex(got) + ", expected " + hex(exp) + belongs);
    }

    /** Fills {@code s} with pattern {@code seed}. */
    public static void fill(MemorySegment s, int seed) {
        MemorySegment.copy(patterned(s.byteSize(), seed), 0, s, 0, s.byteSize());
    }

    /** Fails naming {@code what}, the first differing byte and how many differ, unless {@code s} holds pattern {@code seed}. */
    public static void expectPattern(MemorySegment s, int seed, String what) {
        MemorySegment want = patterned(s.byteSize(), seed);
        long first = s.mismatch(want);
        if (first < 0) return;
        long bad = 0;
        for (long i = first; i < s.byteSize(); i++)
            if (s.get(ValueLayout.JAVA_BYTE, i) != want.get(ValueLayout.JAVA_BYTE, i)) bad++;
        throw new AssertionFailedError(
                what + ": " + bad + " of " + s.byteSize() + " bytes wrong; first at byte " + first + " is 0x"
                        + hex(s.get(ValueLayout.JAVA_BYTE, first)) + ", expected 0x" + hex(pattern(seed, first)));
    }

    /** Fails unless every byte of {@code s} is {@code b}. */
    public static void expectFilled(MemorySegment s, byte b, String what) {
        byte[] want = new byte[Math.toIntExact(s.byteSize())];
        java.util.Arrays.fill(want, b);
        long i = s.mismatch(MemorySegment.ofArray(want));
        if (i >= 0)
            throw new AssertionFailedError(what + ": byte " + i + " of " + s.byteSize() + " is 0x"
                    + hex(s.get(ValueLayout.JAVA_BYTE, i)) + ", expected 0x" + hex(b)
                    + " (memory outside the transfer was touched, or a transfer was lost)");
    }

    /** Fails naming {@code what} and the first differing byte unless {@code actual} equals {@code expected}. */
    public static void expectEqual(MemorySegment actual, MemorySegment expected, String what) {
        if (actual.byteSize() != expected.byteSize())
            throw new AssertionFailedError(what + ": " + actual.byteSize() + " bytes, expected " + expected.byteSize());
        long first = actual.mismatch(expected);
        if (first >= 0)
            throw new AssertionFailedError(what + ": byte " + first + " of " + actual.byteSize() + " is 0x"
                    + hex(actual.get(ValueLayout.JAVA_BYTE, first)) + ", expected 0x"
                    + hex(expected.get(ValueLayout.JAVA_BYTE, first)));
    }

    private static String hex(byte b) {
        return String.format("%02x", b & 0xff);
    }

    /** A copy of {@code len} bytes of this PE's part of {@code buf} from {@code offset}. */
    public static MemorySegment read(Communicator c, SymmetricBuffer buf, long offset, long len) {
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(len)]);
        if (buf.kind().isHost()) {
            MemorySegment.copy(buf.segment(), offset, out, 0, len);
        } else {
            c.rma().get(Memory.of(out), 0, buf, offset, len, c.rank());
        }
        return out;
    }

    /** Writes {@code src} into this PE's part of {@code buf} at {@code offset} (visible to peers after a barrier). */
    public static void write(Communicator c, SymmetricBuffer buf, long offset, MemorySegment src) {
        if (buf.kind().isHost()) {
            MemorySegment.copy(src, 0, buf.segment(), offset, src.byteSize());
        } else {
            c.rma().put(buf, offset, Memory.of(src), 0, src.byteSize(), c.rank());
            c.rma().quiet();
        }
    }

    /** Sets this PE's whole part of {@code buf} to byte {@code b}. */
    public static void clear(Communicator c, SymmetricBuffer buf, byte b) {
        if (buf.kind().isHost()) {
            buf.segment().fill(b);
        } else {
            MemorySegment s = MemorySegment.ofArray(new byte[Math.toIntExact(buf.byteSize())]);
            s.fill(b);
            write(c, buf, 0, s);
        }
    }

    /** Reads the 64-bit word at {@code offset} of this PE's part with acquire ordering. */
    public static long readLong(Communicator c, SymmetricBuffer buf, long offset) {
        if (buf.kind().isHost()) return (long) LONG.getAcquire(buf.segment(), offset);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(8);
            c.rma().get(Memory.of(s), 0, buf, offset, 8, c.rank());
            return s.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** A segment of one long (native byte order). */
    public static MemorySegment longs(long... values) {
        MemorySegment s = MemorySegment.ofArray(new byte[values.length * 8]);
        for (int i = 0; i < values.length; i++) s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, values[i]);
        return s;
    }

    /**
     * Polls the local word at {@code offset} until {@code until} holds; fails after {@code limit}
     * naming {@code what} and the last value seen.
     */
    public static long awaitLong(
            Communicator c, SymmetricBuffer buf, long offset, LongPredicate until, Duration limit, String what) {
        return awaitLong(c, buf, offset, until, v -> true, limit, what);
    }

    /**
     * Like {@link #awaitLong(Communicator, SymmetricBuffer, long, LongPredicate, Duration, String)}, but
     * ends early when the word holds a value that is neither awaited nor {@code stillWaiting} and keeps
     * it for a tenth of the limit (at least a second): a put may be seen half-written for a moment, but a
     * flag that stays torn (a lost byte) can never become right, and waiting out the limit only makes
     * the failure slow.
     */
    public static long awaitLong(
            Communicator c,
            SymmetricBuffer buf,
            long offset,
            LongPredicate until,
            LongPredicate stillWaiting,
            Duration limit,
            String what) {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        long settle = Math.max(1_000_000_000L, limit.toNanos() / 10);
        long v, odd = 0, oddSince = 0;
        boolean seenOdd = false;
        while (!until.test(v = readLong(c, buf, offset))) {
            long now = System.nanoTime();
            if (stillWaiting.test(v)) {
                seenOdd = false;
            } else if (!seenOdd || v != odd) {
                seenOdd = true;
                odd = v;
                oddSince = now;
            } else if (now - oddSince > settle) {
                throw new AssertionFailedError(what + ": holds " + hex(v) + " for " + (now - oddSince) / 1_000_000
                        + " ms, neither the value before nor the awaited one (a flag with missing or corrupted bytes)");
            }
            if (now > deadline)
                throw new AssertionFailedError(what + ": still " + hex(v) + " after " + limit.toMillis() + " ms");
            Thread.onSpinWait();
        }
        return v;
    }

    /** Fails unless the 64-bit word {@code actual} is {@code expected}, showing both in hex and decimal (bit patterns hide in decimal). */
    public static void expectWord(long expected, long actual, String what) {
        if (expected != actual)
            throw new AssertionFailedError(
                    what + ": " + hex(actual) + " (" + actual + "), expected " + hex(expected) + " (" + expected + ")",
                    expected,
                    actual);
    }

    /** A 64-bit word as it is stored: 16 hex digits, so a missing byte shows as a run of 0s or fs. */
    public static String hex(long v) {
        return String.format("0x%016x", v);
    }
}
