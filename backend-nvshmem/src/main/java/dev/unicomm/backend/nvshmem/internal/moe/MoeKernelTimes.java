package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Kernel times of a MoE buffer's operations (CUDA events), on with {@code unicomm.nvshmem.moe.profile=true}:
 * where an operation's time goes, for the benchmark notes. Printed as {@code MOEPROF} lines when the
 * buffer closes. Off by default: reading an event waits for the kernel.
 */
final class MoeKernelTimes {
    private final Map<String, List<Float>> micros = new LinkedHashMap<>();

    MoeKernelTimes(int mode) {
        NvOps.moeProfile(mode);
    }

    /**
     * Records the last operation's kernels under {@code first} and (when it had two) {@code second}, and their
     * sum (first event to last) as {@code "op: " + op} (what {@code unicomm bench moe --gpu-time} reads), and the
     * device-timer span of its kernels as {@code "span: " + op}.
     */
    void record(String op, String first, String second) {
        float[] ms = NvOps.moeTimes();
        micros.computeIfAbsent("op: " + op, k -> new ArrayList<>()).add((ms[0] + ms[1]) * 1000f);
        // Like a profiler's kernel duration: no launch or tear-down (which the events above include).
        if (ms[2] > 0)
            micros.computeIfAbsent("span: " + op, k -> new ArrayList<>()).add(ms[2] * 1000f);
        micros.computeIfAbsent(first, k -> new ArrayList<>()).add(ms[0] * 1000f);
        if (second != null)
            micros.computeIfAbsent(second, k -> new ArrayList<>()).add(ms[1] * 1000f);
    }

    /** Records a host-side duration (e.g. a whole call) in nanoseconds. */
    void recordHost(String what, long nanos) {
        micros.computeIfAbsent(what, k -> new ArrayList<>()).add(nanos / 1000f);
    }

    /** One line per kernel: median and minimum in microseconds, and the number of samples. */
    List<String> summary(int rank) {
        List<String> lines = new ArrayList<>();
        for (var e : micros.entrySet()) {
            float[] v = new float[e.getValue().size()];
            for (int i = 0; i < v.length; i++) v[i] = e.getValue().get(i);
            Arrays.sort(v);
            lines.add(String.format(
                    Locale.ROOT, "MOEPROF,%d,%s,%.1f,%.1f,%d", rank, e.getKey(), v[v.length / 2], v[0], v.length));
        }
        return lines;
    }
}
