package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** 64-bit remote atomics, alone and under contention from every rank: totals must be exact. */
public abstract class AtomicsSuite extends KitSuite {
    static final int PER_RANK = 500;

    /** A fresh 8-byte-aligned word set to {@code v} on every PE (collective). */
    static SymmetricBuffer word(Communicator c, long v) {
        SymmetricBuffer b = c.heap().allocate(64);
        Mem.write(c, b, 0, Mem.longs(v));
        c.barrier();
        return b;
    }

    /** Verifies §5.2: concurrent atomic updates are never lost / if it fails, look at atomicity of the read-modify-write (it must be one remote operation). */
    @Verifies("5.2")
    @Test
    void optional_atomics_fetch_add_contention() {
        var results = spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer w = word(c, 0)) {
                long[] seen = new long[PER_RANK];
                for (int i = 0; i < PER_RANK; i++) seen[i] = c.rma().atomicFetchAdd(w, 0, 1, 0);
                c.barrier();
                Mem.expectWord(
                        (long) PER_RANK * c.size(),
                        c.rma().atomicFetch(w, 0, 0),
                        "total of all fetch-adds on rank 0's word");
                pe.report(Arrays.stream(seen).mapToObj(Long::toString).collect(Collectors.joining(",")));
                c.barrier();
            }
        });
        // every previous value 0 .. total-1 was handed out exactly once
        Set<Long> all = new HashSet<>();
        int total = 0;
        for (String v : values(results)) {
            for (String x : v.split(",")) {
                total++;
                if (!all.add(Long.parseLong(x))) throw new AssertionFailedError("fetch-add returned " + x + " twice");
            }
        }
        for (long i = 0; i < total; i++)
            if (!all.contains(i)) throw new AssertionFailedError("no fetch-add returned " + i + " (of " + total + ")");
    }

    /** Verifies §5.2: concurrent atomic updates are never lost / if it fails, look at atomicity of the read-modify-write (it must be one remote operation). */
    @Verifies("5.2")
    @Test
    void optional_atomics_add_contention_every_pe() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            try (SymmetricBuffer w = word(c, 1000)) {
                for (int i = 0; i < PER_RANK; i++)
                    for (int p = 0; p < n; p++) c.rma().atomicAdd(w, 0, c.rank() + 1, p);
                c.rma().quiet();
                c.barrier();
                long want = 1000 + (long) PER_RANK * n * (n + 1) / 2;
                Mem.expectWord(
                        want,
                        Mem.readLong(c, w, 0),
                        "own word after " + PER_RANK + " adds of (rank+1) from every rank");
                c.barrier();
            }
        });
    }

    /** Verifies §5.2: compare-and-swap returns what it found and writes only on a match / if it fails, look at compareSwap's result and condition. */
    @Verifies("5.2")
    @Test
    void optional_atomics_compare_swap_semantics() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer w = word(c, 7)) {
                c.barrier();
                if (c.rank() == 0) {
                    Mem.expectWord(
                            7, c.rma().atomicCompareSwap(w, 0, 8, 99, right), "failed CAS returns the current value");
                    Mem.expectWord(7, c.rma().atomicFetch(w, 0, right), "failed CAS must not write");
                    Mem.expectWord(
                            7, c.rma().atomicCompareSwap(w, 0, 7, -5, right), "successful CAS returns the old value");
                    Mem.expectWord(-5, c.rma().atomicFetch(w, 0, right), "successful CAS writes the new value");
                }
                c.barrier();
            }
        });
    }

    /** Verifies §5.2: concurrent atomic updates are never lost / if it fails, look at atomicity of the read-modify-write (it must be one remote operation). */
    @Verifies("5.2")
    @Test
    void optional_atomics_compare_swap_contention() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int per = 200;
            try (SymmetricBuffer w = word(c, 0)) {
                int target = c.size() - 1;
                for (int i = 0; i < per; i++) {
                    long cur = c.rma().atomicFetch(w, 0, target);
                    long prev;
                    while ((prev = c.rma().atomicCompareSwap(w, 0, cur, cur + 1, target)) != cur) cur = prev;
                }
                c.barrier();
                Mem.expectWord(
                        (long) per * c.size(),
                        c.rma().atomicFetch(w, 0, target),
                        "counter incremented by CAS loops on every rank");
                c.barrier();
            }
        });
    }

    /** Verifies §5.2: concurrent atomic updates are never lost / if it fails, look at atomicity of the read-modify-write (it must be one remote operation). */
    @Verifies("5.2")
    @Test
    void optional_atomics_swap_contention() {
        var results = spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int per = 200;
            try (SymmetricBuffer w = word(c, -1)) {
                List<Long> got = new ArrayList<>();
                for (int i = 0; i < per; i++) got.add(c.rma().atomicSwap(w, 0, (long) c.rank() * per + i, 0));
                c.barrier();
                if (c.rank() == 0) got.add(c.rma().atomicFetch(w, 0, 0)); // the value nobody swapped out
                pe.report(got.stream().map(Object::toString).collect(Collectors.joining(",")));
                c.barrier();
            }
        });
        // -1 plus every value written must appear exactly once among the swapped-out values and the final one
        List<Long> seen = new ArrayList<>();
        for (String v : values(results)) for (String x : v.split(",")) seen.add(Long.parseLong(x));
        Set<Long> unique = new HashSet<>(seen);
        int n = results.size();
        assertEquals(
                seen.size(),
                unique.size(),
                "a swapped value was returned twice: " + seen.size() + " results, " + unique.size() + " distinct");
        assertEquals(n * 200 + 1, unique.size(), "values written + the initial one");
        for (long i = -1; i < n * 200L; i++)
            if (!unique.contains(i)) throw new AssertionFailedError("value " + i + " was lost by swap");
    }

    /** Verifies §5.1: atomics act on exactly their 64-bit word / if it fails, look at word addressing in the atomic path. */
    @Verifies("5.1")
    @Test
    void optional_atomics_set_and_fetch() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer w = c.heap().allocate(64 * 8)) {
                c.rma().atomicSet(w, 8L * c.rank(), 0x1234_5678_9abc_def0L ^ c.rank(), right);
                c.rma().quiet();
                c.barrier();
                int left = (c.rank() + c.size() - 1) % c.size();
                Mem.expectWord(
                        0x1234_5678_9abc_def0L ^ left, Mem.readLong(c, w, 8L * left), "word set by rank " + left);
                Mem.expectWord(
                        0x1234_5678_9abc_def0L ^ c.rank(),
                        c.rma().atomicFetch(w, 8L * c.rank(), right),
                        "fetch of the word set on rank " + right);
                c.barrier();
            }
        });
    }

    /** Verifies §5.1: atomics wrap around as two's complement / if it fails, look at overflow handling in the atomic path. */
    @Verifies("5.1")
    @Test
    void optional_atomics_wraparound() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer w = word(c, Long.MAX_VALUE)) {
                int me = c.rank();
                Mem.expectWord(Long.MAX_VALUE, c.rma().atomicFetchAdd(w, 0, 1, me), "fetch-add at MAX");
                Mem.expectWord(Long.MIN_VALUE, c.rma().atomicFetch(w, 0, me), "MAX + 1 wraps to MIN");
                c.rma().atomicAdd(w, 0, -1, me);
                Mem.expectWord(Long.MAX_VALUE, c.rma().atomicFetch(w, 0, me), "MIN - 1 wraps to MAX");
                Mem.expectWord(Long.MAX_VALUE, c.rma().atomicSwap(w, 0, -42, me), "swap returns the old value");
                Mem.expectWord(
                        -42, c.rma().atomicCompareSwap(w, 0, -42, Long.MIN_VALUE, me), "CAS on a negative value");
                Mem.expectWord(Long.MIN_VALUE, c.rma().atomicFetch(w, 0, me), "CAS stored MIN");
                c.barrier();
            }
        });
    }

    /** Verifies §5.3: an atomic fetch after quiet sees the completed put / if it fails, look at ordering between the put and atomic paths. */
    @Verifies("5.3")
    @Test
    void optional_atomics_fetch_sees_completed_put() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer w = word(c, 0)) {
                c.rma().put(w, 8, dev.unicomm.api.Memory.of(Mem.longs(555 + c.rank())), 0, 8, right);
                c.rma().quiet();
                c.barrier();
                Mem.expectWord(
                        555 + c.rank(),
                        c.rma().atomicFetch(w, 8, right),
                        "atomic fetch of the word this rank put on rank " + right + " before quiet and barrier");
                c.barrier();
            }
        });
    }

    /** Verifies §5.1: atomics act on exactly their 64-bit word / if it fails, look at word addressing in the atomic path. */
    @Verifies("5.1")
    @Test
    void optional_atomics_distinct_words_independent() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            try (SymmetricBuffer w = c.heap().allocate(8L * n)) {
                Mem.write(c, w, 0, Mem.longs(new long[n]));
                c.barrier();
                // each rank hammers its own word on rank 0; neighbours must not disturb each other
                for (int i = 0; i < PER_RANK; i++) c.rma().atomicAdd(w, 8L * c.rank(), c.rank() + 1, 0);
                c.rma().quiet();
                c.barrier();
                for (int r = 0; r < n; r++)
                    Mem.expectWord(
                            (long) PER_RANK * (r + 1),
                            c.rma().atomicFetch(w, 8L * r, 0),
                            "word of rank " + r + " on rank 0");
                c.barrier();
            }
        });
    }

    /** Verifies §2.4 (fence orders puts before atomics to one PE) / if it fails, look at atomics taking a path that overtakes queued puts: fence must order both. */
    @Verifies("2.4")
    @Test
    void optional_atomics_fence_orders_put_before_atomic() {
        spmd(Capability.ATOMICS, AtomicsCompletion::fenceOrdersPutBeforeAtomic);
    }

    /** Verifies §2.3 (quiet completes atomics) / if it fails, look at non-fetching atomics (add, set) deferred past quiet. */
    @Verifies("2.3")
    @Test
    void optional_atomics_quiet_completes_atomic_updates() {
        spmd(Capability.ATOMICS, AtomicsCompletion::quietCompletesAtomicUpdates);
    }

    /** Verifies §5.3 (an atomic fetch sees completed puts) / if it fails, look at atomic fetches served from a cached value. */
    @Verifies("5.3")
    @Test
    void optional_atomics_fetch_sees_updates_after_barrier() {
        spmd(Capability.ATOMICS, pe -> AtomicsCompletion.readsSeeUpdates(pe, true));
    }

    /** Verifies §5.1 (atomic with respect to signal updates on the same word) / if it fails, look at signal words kept or counted apart from atomic words. */
    @Verifies("5.1")
    @Test
    void optional_atomics_mixed_with_signal_add_on_one_word() {
        spmd(Capability.ATOMICS, AtomicsCompletion::atomicsAndSignalAddsShareAWord);
    }
}
