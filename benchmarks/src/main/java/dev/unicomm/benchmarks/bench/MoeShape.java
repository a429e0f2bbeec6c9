package dev.unicomm.benchmarks.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench moe --shape NAME}: the routing shapes of published MoE models (hidden size, experts per token, experts),
 * so that runs on different machines name the same shape. Models' figures are from their public configurations;
 * the generic top-16 and top-22 shapes stand for the fine-grained models that route a token to 16 and 22 experts.
 */
record MoeShape(String name, int hidden, int topk, int experts, String what) {

    static final List<MoeShape> PRESETS = List.of(
            new MoeShape("deepseek-v3", 7168, 8, 256, "DeepSeek-V3 / R1: hidden 7168, top-8 of 256 routed experts"),
            new MoeShape("kimi-k2", 7168, 8, 384, "Kimi K2-class: hidden 7168, top-8 of 384 experts"),
            new MoeShape("qwen3-moe", 4096, 8, 128, "Qwen3-MoE (235B-A22B): hidden 4096, top-8 of 128 experts"),
            new MoeShape("top16", 5120, 16, 256, "a top-16 shape: hidden 5120, top-16 of 256 experts"),
            new MoeShape("top22", 3072, 22, 512, "a top-22 shape: hidden 3072, top-22 of 512 experts"),
            new MoeShape("h2048-e1024", 2048, 8, 1024, "fine-grained experts: hidden 2048, top-8 of 1024 experts"),
            new MoeShape("top1", 1024, 1, 64, "edge: top-1, hidden 1024, 64 experts"),
            new MoeShape("top32", 1024, 32, 256, "edge: top-32, hidden 1024, 256 experts"));

    /** The presets named in {@code list} (comma-separated), in order; an unknown name is refused with the known ones. */
    static List<MoeShape> parse(String list) {
        List<MoeShape> out = new ArrayList<>();
        for (String name : list.split(",")) {
            String n = name.strip().toLowerCase(Locale.ROOT);
            out.add(PRESETS.stream()
                    .filter(s -> s.name.equals(n))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--shape '" + name.strip()
                            + "' is not a preset; known: "
                            + String.join(
                                    ", ", PRESETS.stream().map(MoeShape::name).toList()))));
        }
        return out;
    }

    /** {@code file} with this shape's name before its extension (moe.csv: moe-kimi-k2.csv). */
    java.nio.file.Path fileFor(java.nio.file.Path file) {
        String n = file.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return file.resolveSibling(dot > 0 ? n.substring(0, dot) + "-" + name + n.substring(dot) : n + "-" + name);
    }

    /** Where {@code ranks} cannot host this shape: experts must be divisible by the ranks. */
    String unfitFor(int ranks) {
        return experts % ranks == 0
                ? null
                : "--shape " + name + " has " + experts + " experts, not divisible by -n " + ranks;
    }
}
