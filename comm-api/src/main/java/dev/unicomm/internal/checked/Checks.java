package dev.unicomm.internal.checked;

/** Argument checks shared by the validating wrappers; each message says what was wrong and what is allowed. */
public final class Checks {
    private Checks() {}

    /** {@code pe} must be a rank of a group of {@code size}. */
    public static void pe(int pe, int size) {
        if (pe < 0 || pe >= size)
            throw new IndexOutOfBoundsException(
                    "PE " + pe + " is out of range: the communicator has PEs 0.." + (size - 1));
    }

    /** {@code [offset, offset+length)} must lie within {@code [0, capacity)}. */
    public static void range(String what, long offset, long length, long capacity) {
        if (offset < 0 || length < 0 || offset > capacity || length > capacity - offset)
            throw new IndexOutOfBoundsException(what + ": range [" + offset + ", " + offset + "+" + length
                    + ") is outside the " + capacity + "-byte memory");
    }

    /** A 64-bit word at {@code offset}: 8-byte aligned and inside {@code capacity}. */
    public static void word(String what, long offset, long capacity) {
        if ((offset & 7) != 0)
            throw new IllegalArgumentException(
                    what + ": offset " + offset + " is not 8-byte aligned (64-bit atomics and signals need alignment)");
        range(what, offset, 8, capacity);
    }

    /** Non-negative count. */
    public static void nonNegative(String what, long value) {
        if (value < 0) throw new IllegalArgumentException(what + " must be >= 0, got " + value);
    }

    /** Power of two >= 1. */
    public static void powerOfTwo(String what, long value) {
        if (value < 1 || Long.bitCount(value) != 1)
            throw new IllegalArgumentException(what + " must be a power of two >= 1, got " + value);
    }

    /** Non-null argument. */
    public static <T> T notNull(String what, T value) {
        if (value == null) throw new IllegalArgumentException(what + " must not be null");
        return value;
    }
}
