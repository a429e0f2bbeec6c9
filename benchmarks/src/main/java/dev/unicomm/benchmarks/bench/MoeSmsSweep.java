package dev.unicomm.benchmarks.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench moe --sms 4,6,8,24,64} / {@code --ll-sms}: one run of the jobs per block budget of the GPU kernels
 * (normal mode: {@code unicomm.nvshmem.moe.sms}; low-latency mode its own {@code unicomm.nvshmem.moe.ll.sms}), each
 * row labelled with its budget. Given both, the lists pair up by position and must be as long as each other.
 */
record MoeSmsSweep(Integer normal, Integer lowLatency) {

    /** The runs: one without settings (the backend's defaults) when neither list is given. */
    static List<MoeSmsSweep> of(List<Integer> sms, List<Integer> llSms) {
        List<Integer> n = sms == null ? List.of() : sms, l = llSms == null ? List.of() : llSms;
        for (int v : n) BenchLimits.count("--sms", v, 1, 1024);
        for (int v : l) BenchLimits.count("--ll-sms", v, 1, 1024);
        if (!n.isEmpty() && !l.isEmpty() && n.size() != l.size())
            throw new IllegalArgumentException("--sms and --ll-sms pair up by position: give as many values to each ("
                    + n.size() + " vs " + l.size() + ")");
        List<MoeSmsSweep> runs = new ArrayList<>();
        for (int i = 0; i < Math.max(1, Math.max(n.size(), l.size())); i++)
            runs.add(new MoeSmsSweep(n.isEmpty() ? null : n.get(i), l.isEmpty() ? null : l.get(i)));
        return runs;
    }

    /** The job's environment for this budget (the backend reads unicomm.* settings from UNICOMM_* variables). */
    Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        if (normal != null) env.put("UNICOMM_NVSHMEM_MOE_SMS", Integer.toString(normal));
        if (lowLatency != null) env.put("UNICOMM_NVSHMEM_MOE_LL_SMS", Integer.toString(lowLatency));
        return env;
    }

    /** An operation's name with the budget of its mode, if one is set ("normal dispatch bf16 @24 SMs"). */
    String label(String op) {
        Integer v = op.startsWith("ll ") ? lowLatency : normal;
        return v == null ? op : op + " @" + v + " SMs";
    }
}
