package dev.unicomm.api;

/** Comparison used by wait-until: the wait ends when {@code word CMP value} holds. */
public enum Cmp {
    EQ,
    NE,
    GT,
    GE,
    LT,
    LE;

    /** Whether {@code word CMP value} holds (signed 64-bit comparison). */
    public boolean test(long word, long value) {
        return switch (this) {
            case EQ -> word == value;
            case NE -> word != value;
            case GT -> word > value;
            case GE -> word >= value;
            case LT -> word < value;
            case LE -> word <= value;
        };
    }
}
