package dev.unicomm.collectives;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The portable collectives' and MoE's settings (read by {@link CollectivesSettings} and {@link MoeAlgorithm}). */
public final class CollectivesSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table(
                """
                collectives.slot.bytes   | %d    | payload bytes of one scratch slot (a multiple of 64): larger reductions without direct access go in pieces this big
                collectives.inline.bytes | %d    | calls moving at most this many bytes per message use the one-round inline algorithm (at most the slot)
                collectives.direct       | true  | load/store peers' buffers directly where the backend maps them (collectives and MoE); false: every byte by RMA
                collectives.two_level    | true  | the world's allgather, allreduce and reduce-scatter may run in two levels on several hosts
                moe.algorithm            | auto  | normal-mode MoE: flat, hierarchical (two levels across hosts) or auto
                moe.direct               | unset | deprecated: use collectives.direct (read only where that is unset, with a warning)
                """.formatted(CollectivesSettings.DEFAULT_SLOT_BYTES, CollectivesSettings.DEFAULT_INLINE_BYTES));
    }
}
