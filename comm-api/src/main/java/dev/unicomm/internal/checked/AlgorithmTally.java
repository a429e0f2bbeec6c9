package dev.unicomm.internal.checked;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Calls counted by {@code operation/algorithm}, for {@link dev.unicomm.api.Communicator#algorithmCounts()}. */
final class AlgorithmTally {
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

    void add(String key) {
        calls.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    void addAll(Map<String, Long> counts) {
        counts.forEach((k, n) -> calls.computeIfAbsent(k, x -> new LongAdder()).add(n));
    }

    /** Adds this tally's counts into {@code into}. */
    void into(Map<String, Long> into) {
        calls.forEach((k, n) -> into.merge(k, n.sum(), Long::sum));
    }

    /** {@code a} and {@code b} summed, sorted by key. */
    static Map<String, Long> sum(Map<String, Long> a, AlgorithmTally b) {
        Map<String, Long> m = new TreeMap<>(a);
        b.into(m);
        return m;
    }
}
