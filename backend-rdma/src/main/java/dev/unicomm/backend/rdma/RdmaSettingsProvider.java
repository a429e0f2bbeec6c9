package dev.unicomm.backend.rdma;

import dev.unicomm.backend.rdma.internal.QueuePair;
import dev.unicomm.backend.rdma.internal.Verbs;
import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The rdma backend's settings (docs/backends/rdma.md). Per-device ones take one value, or one per local rank separated by commas. */
public final class RdmaSettingsProvider implements SettingsProvider {
    @Override public List<Setting> settings() {
        return List.of(
                new Setting("rdma.device", "the first device with an ACTIVE port", "verbs device (e.g. mlx5_0), or one per local rank"),
                new Setting("rdma.port", "1", "port of the device, or one per local rank"),
                new Setting("rdma.gid_index", "-1 (a RoCE v2 GID)", "GID index, or one per local rank"),
                new Setting("rdma.ack_timeout", Integer.toString(QueuePair.ACK_TIMEOUT), "ack timeout exponent 1..31 (4.096 µs x 2^n per try)"),
                new Setting(Verbs.LIBRARY_KEY, "libibverbs.so.1", "another libibverbs to load (name or path)"));
    }
}
