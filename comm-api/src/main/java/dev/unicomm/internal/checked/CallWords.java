package dev.unicomm.internal.checked;

import dev.unicomm.api.DType;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import java.util.function.LongFunction;

/**
 * How a collective call's key arguments are packed into the two words every member must share
 * ({@link CallLedger}), and how they are told back in words when members disagree: each argument
 * is a {@link Field} with a name, a place (word, shift, width) and a way to show its value, so a
 * mismatch reads "dtype: rank 0 passed BF16, rank 2 passed FP32" instead of a packed number.
 */
final class CallWords {
    private CallWords() {}

    /** One argument: bits {@code [shift, shift + bits)} of word {@code word} (0: a, 1: b). */
    record Field(String name, int word, int shift, int bits, LongFunction<String> shown) {
        long get(long[] words) {
            long v = words[2 + word] >>> shift;
            return bits == 64 ? v : v & ((1L << bits) - 1);
        }

        /** {@code value} placed in its bits (a value wider than the field keeps its low bits). */
        long put(long value) {
            return (bits == 64 ? value : value & ((1L << bits) - 1)) << shift;
        }
    }

    static Field number(String name, int word, int shift, int bits) {
        return new Field(name, word, shift, bits, Long::toString);
    }

    static Field bool(String name, int word, int shift) {
        return new Field(name, word, shift, 1, v -> v != 0 ? "true" : "false");
    }

    /** An enum (or null) stored as {@link #code}: ordinal + 1, 0 for none. */
    static Field named(String name, int word, int shift, int bits, Enum<?>[] values) {
        return new Field(
                name,
                word,
                shift,
                bits,
                v -> v == 0 ? "none" : v <= values.length ? values[(int) v - 1].name() : "unknown value " + v);
    }

    static long code(Enum<?> e) {
        return e == null ? 0 : e.ordinal() + 1;
    }

    static final Field DTYPE = named("dtype", 1, 0, 8, DType.values());
    static final Field REDUCE_OP = named("op", 1, 8, 8, ReduceOp.values());

    /** MoE buffer open: the config's fields in word a and b, then the mask's size and fingerprint (0: no mask). */
    private static final Field MODE = named("mode", 0, 0, 4, MoeConfig.Mode.values());

    private static final Field TOPK = number("numTopk", 0, 4, 12);
    private static final Field EXPERTS = number("numExperts", 0, 16, 24);
    private static final Field HIDDEN = number("hidden", 0, 40, 24);
    private static final Field MAX_TOKENS = number("maxTokensPerRank", 1, 0, 24);
    private static final Field FP8 = bool("useFp8", 1, 24);
    private static final Field MASK = new Field("mask", 1, 25, 39, CallWords::showMask);
    static final Field[] MOE_OPEN = {MODE, EXPERTS, HIDDEN, MAX_TOKENS, TOPK, FP8, MASK};

    /** Words {a, b} of a MoE buffer open; {@code mask} null for a buffer without one. */
    static long[] moeOpen(MoeConfig c, ExpertMask mask) {
        long a =
                MODE.put(code(c.mode())) | TOPK.put(c.numTopk()) | EXPERTS.put(c.numExperts()) | HIDDEN.put(c.hidden());
        long b = MAX_TOKENS.put(c.maxTokensPerRank())
                | FP8.put(c.useFp8() ? 1 : 0)
                | MASK.put(mask == null ? 0 : maskWord(mask));
        return new long[] {a, b};
    }

    /** 12 bits of active-rank count, 27 of fingerprint (job size and active ranks); never 0. */
    private static long maskWord(ExpertMask m) {
        long h = 0x9E3779B97F4A7C15L * (m.jobSize() + 1L);
        for (int r : m.activeJobRanks()) h = Long.rotateLeft(h ^ (r + 1L), 23) * 0xBF58476D1CE4E5B9L;
        long count = Math.min(m.activeCount(), 4095);
        return count | ((h >>> 37) & ((1L << 27) - 1)) << 12;
    }

    private static String showMask(long v) {
        if (v == 0) return "none";
        return "a mask of " + (v & 4095) + " active ranks (fingerprint " + Long.toHexString(v >>> 12) + ")";
    }

    /** "count 16, dtype BF16" (fields in declaration order). */
    static String describe(Field[] fields, long[] words) {
        StringBuilder sb = new StringBuilder();
        for (Field f : fields)
            sb.append(sb.isEmpty() ? "" : ", ")
                    .append(f.name())
                    .append(' ')
                    .append(f.shown().apply(f.get(words)));
        return sb.toString();
    }

    /** Each differing field: "hidden: rank 0 passed 7168, rank 2 passed 4096"; empty if none differs. */
    static String differences(Field[] fields, long[] ref, long[] off, String refWho, String offWho) {
        StringBuilder sb = new StringBuilder();
        for (Field f : fields) {
            long x = f.get(ref), y = f.get(off);
            if (x == y) continue;
            sb.append(sb.isEmpty() ? "" : "; ")
                    .append(f.name())
                    .append(": ")
                    .append(refWho)
                    .append(" passed ")
                    .append(f.shown().apply(x))
                    .append(", ")
                    .append(offWho)
                    .append(" passed ")
                    .append(f.shown().apply(y));
        }
        return sb.toString();
    }
}
