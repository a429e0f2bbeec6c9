package dev.unicomm.collectives;

import dev.unicomm.api.Communicator;
import dev.unicomm.core.CheckedCommunicator;

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
public record Settings(long slotBytes, long inlineBytes, boolean direct) {
    /** Default slot payload: 64 KiB. */
    public static final long DEFAULT_SLOT_BYTES = 64 << 10;
    /** Default inline limit: 16 KiB. */
    public static final long DEFAULT_INLINE_BYTES = 16 << 10;

    public Settings {
        if (slotBytes < 64 || slotBytes % 64 != 0)
            throw new IllegalArgumentException("unicomm.collectives.slot.bytes must be a multiple of 64 and >= 64, got " + slotBytes);
        if (inlineBytes < 0 || inlineBytes > slotBytes)
            throw new IllegalArgumentException("unicomm.collectives.inline.bytes must be in [0, slot bytes = " + slotBytes + "], got " + inlineBytes);
    }

    /** The defaults. */
    public static Settings defaults() { return new Settings(DEFAULT_SLOT_BYTES, DEFAULT_INLINE_BYTES, true); }

    /** Reads the settings of {@code comm} (defaults where unset or where the communicator has no configuration). */
    static Settings of(Communicator comm) {
        if (!(comm instanceof CheckedCommunicator cc)) return defaults();
        long slot = number(cc, "unicomm.collectives.slot.bytes", DEFAULT_SLOT_BYTES);
        long inline = number(cc, "unicomm.collectives.inline.bytes", Math.min(DEFAULT_INLINE_BYTES, slot));
        String direct = cc.config().property("unicomm.collectives.direct", "true").trim();
        if (!direct.equalsIgnoreCase("true") && !direct.equalsIgnoreCase("false"))
            throw new IllegalArgumentException("unicomm.collectives.direct must be true or false, got '" + direct + "'");
        return new Settings(slot, inline, Boolean.parseBoolean(direct));
    }

    private static long number(CheckedCommunicator cc, String key, long def) {
        String v = cc.config().property(key, null);
        if (v == null) return def;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number of bytes, got '" + v + "'", e);
        }
    }
}
