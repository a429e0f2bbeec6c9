package dev.unicomm.backend.rdma.internal;

import java.util.Arrays;
import java.util.List;

/**
 * A setting that may name one value for every PE of a host, or one per local rank: {@code rxe0} for all,
 * or {@code mlx5_0,mlx5_0,mlx5_1,mlx5_1} for the NIC nearest each local rank (the usual "one NIC per
 * pair of GPUs" layout). Local rank {@code r} takes entry {@code r % n}. Each host sets its own value,
 * so ranks on different hosts may name different devices and GID indexes.
 */
final class PerLocalRank {
    private PerLocalRank() {}

    /** The entry of {@code value} for {@code localRank}, or {@code null} when {@code value} is null. */
    static String pick(String key, String value, int localRank) {
        if (value == null) return null;
        List<String> entries =
                Arrays.stream(value.split(",", -1)).map(String::strip).toList();
        for (String e : entries)
            if (e.isEmpty())
                throw new IllegalArgumentException("unicomm." + key + " has an empty entry: '" + value
                        + "' (give one value, or one per local rank separated by commas)");
        return entries.get(localRank % entries.size());
    }

    /** {@link #pick} for an integer setting; {@code def} when unset. */
    static int pickInt(String key, String value, int localRank, int def) {
        String v = pick(key, value, localRank);
        if (v == null) return def;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "unicomm." + key + " must be an integer (or one per local rank separated by commas), got '" + v
                            + "' in '" + value + "'");
        }
    }
}
