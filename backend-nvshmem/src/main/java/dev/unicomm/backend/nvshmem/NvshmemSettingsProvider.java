package dev.unicomm.backend.nvshmem;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The nvshmem backend's settings (docs/backends/nvshmem.md); NVSHMEM's own {@code NVSHMEM_*} variables go to it unchanged. */
public final class NvshmemSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                nvshmem.home          | NVSHMEM_HOME, else a pip site-packages      | NVSHMEM install whose lib/ holds libnvshmem_host.so.3
                nvshmem.ops           | the ops library of the natives jar          | path of another libunicomm_nvshmem_ops.so
                nvshmem.device        | local rank modulo visible GPUs              | CUDA device this PE uses
                nvshmem.finalize      | false                                       | nvshmem_finalize when the last communicator closes
                nvshmem.bounceBytes   | 4194304                                     | pinned bounce and device staging buffer for host data
                nvshmem.scratchBytes  | 4194304                                     | data part of the symmetric scratch (4096 for a one-PE communicator)
                nvshmem.soloPoolBytes | 64M                                         | symmetric pool reserved at init for one-PE communicators of a larger job
                nvshmem.moe.sms       | this PE's share of the SMs                  | blocks per MoE kernel
                nvshmem.moe.ll.sms    | the whole GPU (this PE's share when shared) | blocks per low-latency MoE kernel
                nvshmem.moe.transport | auto                                        | auto (loads/stores where every heap is mapped, else NVSHMEM), loadstore or nvshmem
                nvshmem.moe.profile   | false                                       | time the MoE kernels: false, true (= launch) or aligned
                nvshmem.moe.elastic   | the job's elastic mode (unicomm.elastic)    | MoE kernels mark a peer silent past the timeout inactive and go on without it
                """);
    }
}
