package dev.unicomm.backend.nvshmem;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The nvshmem backend's settings (docs/backends/nvshmem.md); NVSHMEM's own {@code NVSHMEM_*} variables go to it unchanged. */
public final class NvshmemSettingsProvider implements SettingsProvider {
    @Override public List<Setting> settings() {
        return List.of(
                new Setting("nvshmem.home", "NVSHMEM_HOME, else a pip site-packages", "NVSHMEM install whose lib/ holds libnvshmem_host.so.3"),
                new Setting("nvshmem.ops", "the ops library of the natives jar", "path of another libunicomm_nvshmem_ops.so"),
                new Setting("nvshmem.device", "local rank modulo visible GPUs", "CUDA device this PE uses"),
                new Setting("nvshmem.finalize", "false", "nvshmem_finalize when the last communicator closes"),
                new Setting("nvshmem.bounceBytes", "4194304", "pinned bounce and device staging buffer for host data"),
                new Setting("nvshmem.scratchBytes", "4194304", "data part of the symmetric scratch (4096 for a one-PE communicator)"),
                new Setting("nvshmem.soloPoolBytes", "64M", "symmetric pool reserved at init for one-PE communicators of a larger job"),
                new Setting("nvshmem.moe.sms", "this PE's share of the SMs", "blocks per MoE kernel"),
                new Setting("nvshmem.moe.ll.sms", "the whole GPU (this PE's share when shared)", "blocks per low-latency MoE kernel"),
                new Setting("nvshmem.moe.transport", "auto", "auto (loads/stores where every heap is mapped, else NVSHMEM), loadstore or nvshmem"),
                new Setting("nvshmem.moe.profile", "false", "time the MoE kernels: false, true (= launch) or aligned"));
    }
}
