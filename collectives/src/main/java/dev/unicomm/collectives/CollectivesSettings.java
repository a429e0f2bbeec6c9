package dev.unicomm.collectives;

import dev.unicomm.api.CommConfig;

/**
 * Tuning of the portable collectives, read from the communicator's configuration
 * ({@code -Dunicomm.collectives.*} or {@code UNICOMM_COLLECTIVES_*}). Every rank must use the same
 * values: ranks that pick different algorithms for one call get an {@link IllegalArgumentException}.
 *
 * @param slotBytes   payload bytes of one scratch slot: messages up to this size travel inline, larger
 *                    reductions without direct peer access are staged through slots in pieces this big
 * @param inlineBytes calls moving at most this many bytes per message use the one-round inline
 *                    algorithm (at most {@code slotBytes})
 * @param direct      whether to load/store peers' buffers directly where the backend allows it
 */
public record CollectivesSettings(long slotBytes, long inlineBytes, boolean direct) {
    /** Default slot payload: 64 KiB. */
    public static final long DEFAULT_SLOT_BYTES = 64 << 10;
    /** Default inline limit: 16 KiB. */
    public static final long DEFAULT_INLINE_BYTES = 16 << 10;

    public CollectivesSettings {
        if (slotBytes < 64 || slotBytes % 64 != 0)
            throw new IllegalArgumentException(
                    "unicomm.collectives.slot.bytes must be a multiple of 64 and >= 64, got " + slotBytes);
        if (inlineBytes < 0 || inlineBytes > slotBytes)
            throw new IllegalArgumentException("unicomm.collectives.inline.bytes must be in [0, slot bytes = "
                    + slotBytes + "], got " + inlineBytes);
    }

    /** The defaults. */
    public static CollectivesSettings defaults() {
        return new CollectivesSettings(DEFAULT_SLOT_BYTES, DEFAULT_INLINE_BYTES, true);
    }

    /** Reads the settings from the job's configuration (defaults where unset). */
    static CollectivesSettings of(CommConfig config) {
        long slot = number(config, "unicomm.collectives.slot.bytes", DEFAULT_SLOT_BYTES);
        long inline = number(config, "unicomm.collectives.inline.bytes", Math.min(DEFAULT_INLINE_BYTES, slot));
        String direct = config.property("unicomm.collectives.direct", "true").trim();
        if (!direct.equalsIgnoreCase("true") && !direct.equalsIgnoreCase("false"))
            throw new IllegalArgumentException(
                    "unicomm.collectives.direct must be true or false, got '" + direct + "'");
        return new CollectivesSettings(slot, inline, Boolean.parseBoolean(direct));
    }

    /**
     * {@code unicomm.collectives.two_level} ({@code UNICOMM_COLLECTIVES_TWO_LEVEL}, default true): whether the
     * world's allgather, allreduce and reduce-scatter may run in two levels on several hosts; false keeps every
     * collective flat. The
     * same on every rank (a rank that differs makes the call run the flat RMA schedule everywhere).
     */
    static boolean twoLevel(CommConfig config) {
        String v = config.property("unicomm.collectives.two_level", "true").trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false"))
            throw new IllegalArgumentException("unicomm.collectives.two_level must be true or false, got '" + v + "'");
        return Boolean.parseBoolean(v);
    }

    private static long number(CommConfig config, String key, long def) {
        String v = config.property(key, null);
        if (v == null) return def;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number of bytes, got '" + v + "'", e);
        }
    }
}
