package dev.unicomm.api;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one grammar for sizes in settings, environment variables and command options: a whole number
 * of bytes with an optional binary suffix, case-insensitive, spaces allowed: {@code 4096}, {@code 8B},
 * {@code 64K}, {@code 64KB}, {@code 64KiB}, {@code 16M}, {@code 1G}, {@code 1T} (powers of 1024).
 */
public final class ByteSize {
    private static final Pattern GRAMMAR = Pattern.compile("(\\d+)\\s*([KMGT]?)(I?B)?");

    private ByteSize() {}

    /**
     * Parses {@code text} as a size of zero or more bytes.
     *
     * @param what names the setting in the error (e.g. {@code "UNICOMM_HEAP_SIZE"})
     * @throws IllegalArgumentException naming {@code what} and the text, if it does not follow the grammar or exceeds {@code Long.MAX_VALUE}
     */
    public static long parse(String what, String text) {
        Matcher m = text == null ? null : GRAMMAR.matcher(text.trim().toUpperCase(Locale.ROOT));
        if (m == null
                || !m.matches()
                || (m.group(3) != null
                        && m.group(3).startsWith("I")
                        && m.group(2).isEmpty())) throw bad(what, text);
        int shift =
                switch (m.group(2)) {
                    case "K" -> 10;
                    case "M" -> 20;
                    case "G" -> 30;
                    case "T" -> 40;
                    default -> 0;
                };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(what, text);
        }
    }

    /** As {@link #parse}, but the size must be at least one byte. */
    public static long parsePositive(String what, String text) {
        long v = parse(what, text);
        if (v == 0) throw new IllegalArgumentException(what + " must be at least 1 byte, got '" + text + "'");
        return v;
    }

    /** {@code 8 -> "8 B", 4096 -> "4 KiB", 3 << 20 -> "3 MiB"}: the largest binary unit that divides {@code bytes}. */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (u < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + " " + units[u];
    }

    private static IllegalArgumentException bad(String what, String text) {
        return new IllegalArgumentException(what + " must be a whole number of bytes with an optional K/M/G/T suffix "
                + "(powers of 1024, e.g. 64K or 16M), got '" + text + "'");
    }
}
