package dev.unicomm.backend.rdma;

import dev.unicomm.backend.rdma.internal.QueuePair;
import dev.unicomm.backend.rdma.internal.Verbs;
import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The rdma backend's settings (docs/backends/rdma.md). Per-device ones take one value, or one per local rank separated by commas. */
public final class RdmaSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                rdma.device      | the first device with an ACTIVE port | verbs device (e.g. mlx5_0), or one per local rank
                rdma.port        | 1                                    | port of the device, or one per local rank
                rdma.gid_index   | -1 (a RoCE v2 GID)                   | GID index, or one per local rank
                rdma.ack_timeout | %d                                   | ack timeout exponent 1..31 (4.096 µs x 2^n per try)
                %s  | libibverbs.so.1                      | another libibverbs to load (name or path)
                """.formatted(QueuePair.ACK_TIMEOUT, Verbs.LIBRARY_KEY));
    }
}
