package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.MoeConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** bench moe's shape presets, SM budgets and DeepEP size hints; one short run with a preset and two budgets. */
class MoeShapeTest {

    @Test
    void presetsAreTheModelsShapesAndUnknownNamesListTheKnownOnes() {
        List<MoeShape> s = MoeShape.parse("deepseek-v3, Kimi-K2,qwen3-moe,top16,top22,h2048-e1024");
        assertEquals(
                List.of(7168, 7168, 4096, 5120, 3072, 2048),
                s.stream().map(MoeShape::hidden).toList());
        assertEquals(List.of(8, 8, 8, 16, 22, 8), s.stream().map(MoeShape::topk).toList());
        assertEquals(
                List.of(256, 384, 128, 256, 512, 1024),
                s.stream().map(MoeShape::experts).toList());
        for (MoeShape p : MoeShape.PRESETS) {
            new MoeConfig(
                    MoeConfig.Mode.NORMAL,
                    p.experts(),
                    p.hidden(),
                    8192,
                    p.topk(),
                    true); // every preset is a valid FP8 shape
            assertNull(p.unfitFor(2), p.name());
            assertNull(p.unfitFor(8), p.name());
        }
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> MoeShape.parse("gpt-9"));
        assertTrue(
                bad.getMessage().contains("'gpt-9' is not a preset")
                        && bad.getMessage().contains("kimi-k2"),
                bad.getMessage());
        assertTrue(MoeShape.parse("kimi-k2").getFirst().unfitFor(40).contains("not divisible by -n 40"));
        assertEquals(
                java.nio.file.Path.of("out/moe-top22.csv"),
                MoeShape.parse("top22").getFirst().fileFor(java.nio.file.Path.of("out/moe.csv")));
    }

    @Test
    void smsBudgetsPairUpAndLabelTheirModesRows() {
        assertEquals(List.of(new MoeSmsSweep(null, null)), MoeSmsSweep.of(null, null));
        List<MoeSmsSweep> runs = MoeSmsSweep.of(List.of(4, 24), null);
        assertEquals(Map.of("UNICOMM_NVSHMEM_MOE_SMS", "4"), runs.getFirst().env());
        assertEquals("normal dispatch bf16 @24 SMs", runs.get(1).label("normal dispatch bf16"));
        assertEquals("ll combine", runs.get(1).label("ll combine"), "low-latency kernels keep their own setting");
        MoeSmsSweep both = MoeSmsSweep.of(List.of(8), List.of(64)).getFirst();
        assertEquals("ll combine @64 SMs", both.label("ll combine"));
        assertEquals("64", both.env().get("UNICOMM_NVSHMEM_MOE_LL_SMS"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MoeSmsSweep.of(List.of(4, 6), List.of(8)))
                .getMessage()
                .contains("pair up"));
        assertThrows(IllegalArgumentException.class, () -> MoeSmsSweep.of(List.of(0), null));
    }

    /** DeepSeek-V3's decode shape (128 tokens, hidden 7168, 256 experts, 8 ranks), worked by hand from DeepEP's layout. */
    @Test
    void deepEpHintsFollowItsLayout() {
        // dispatch message 16 + 14336 = 14352 bytes, combine message 224 + 14336 = 14560; send and receive 256 x 128 x
        // 14560 each, twice;
        // signals 256 x 8 + 32 x 4 = 2176 twice; then rounded up past the next 128.
        long total = 4L * 256 * 128 * 14560 + 2 * 2176;
        assertEquals((total + 128) / 128 * 128, DeepEpSizeHint.lowLatency(128, 7168, 8, 256));
        long slots = 10L * 2 * 256;
        assertEquals(
                (10L * 2 * 5 * 4 + slots * (14336 + 8 + 128 * 16) + 127) / 128 * 128, DeepEpSizeHint.normal(7168, 2));
        assertEquals(-1, DeepEpSizeHint.normal(7168, 16));
    }

    @Test
    void aPresetRunsOncePerBudgetAndReportsMemoryPerPe() throws Exception {
        String out = Bench.succeeds("bench moe -n 2 --shape top1 --mode normal --tokens 16 --iters 1 --sms 4,8");
        assertTrue(
                out.contains("shape top1: edge: top-1")
                        && out.contains("normal dispatch @4 SMs")
                        && out.contains("normal combine @8 SMs")
                        && out.contains("memory per PE, normal, 16 tokens: MoeConfig.sizeHint")
                        && out.contains("DeepEP V1"),
                out);
    }
}
