package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.BackendRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** Bootstrap and lifecycle: ranks, reports, open/close cycles that leak nothing. */
public abstract class LifecycleSuite extends KitSuite {

    /** Verifies §7.3: ranks are 0..n-1, each once / if it fails, look at rank assignment at open. */
    @Verifies("7.3")
    @Test
    void required_lifecycle_ranks_distinct_and_complete() {
        var results = spmd(pe -> {
            Communicator c = pe.comm();
            assertEquals(pe.size(), c.size(), "communicator size");
            assertEquals(pe.rank(), c.rank(), "communicator rank vs UNICOMM_RANK");
            pe.report(c.rank());
        });
        Set<String> ranks = new TreeSet<>(values(results));
        assertEquals(ranks(), ranks.size(), "every rank must report a distinct rank, got " + values(results));
    }

    /** Verifies §7.4: the communicator reports its backend, version and capabilities / if it fails, look at the provider's report. */
    @Verifies("7.4")
    @Test
    void required_lifecycle_backend_report() {
        spmd(pe -> {
            Communicator c = pe.comm();
            assertEquals(pe.backend(), c.backend().name(), "the communicator's backend");
            var declared = BackendRegistry.load().providers().stream()
                    .filter(p -> p.name().equals(pe.backend()))
                    .findFirst()
                    .orElseThrow()
                    .capabilities();
            assertEquals(declared, c.capabilities(), "capabilities of the communicator vs the provider's");
            assertTrue(c.backend().available(), "an open backend reports itself available");
        });
    }

    /** Verifies §7.5: the communicator uses the configured timeout / if it fails, look at how the backend reads CommConfig's timeout. */
    @Verifies("7.5")
    @Test
    void required_lifecycle_timeout_configured() {
        spmd(pe -> assertEquals(pe.timeout(), pe.comm().timeout(), "communicator timeout vs UNICOMM_TIMEOUT"));
    }

    /** Verifies §6.1: the world team spans every PE / if it fails, look at the world team's construction. */
    @Verifies("6.1")
    @Test
    void required_lifecycle_world_team() {
        spmd(pe -> {
            var w = pe.comm().world();
            assertEquals(pe.size(), w.size(), "world team size");
            assertEquals(pe.rank(), w.rank(), "world team rank");
            for (int i = 0; i < w.size(); i++)
                assertEquals(i, w.worldRank(i), "world team rank " + i + " -> world rank");
        });
    }

    /** Verifies §7.4: the heap's memory kind matches the declared capabilities / if it fails, look at capabilities() versus the heap actually allocated. */
    @Verifies("7.4")
    @Test
    void required_lifecycle_heap_kind_declared() {
        spmd(pe -> {
            Communicator c = pe.comm();
            MemoryKind k = c.heap().kind();
            boolean device = c.has(dev.unicomm.api.Capability.DEVICE_MEMORY_CUDA)
                    || c.has(dev.unicomm.api.Capability.DEVICE_MEMORY_ASCEND);
            assertEquals(
                    device,
                    !k.isHost(),
                    "heap kind " + k + " vs declared device-memory capabilities " + c.capabilities());
            assertTrue(
                    c.heap().capacity() >= pe.heapSize(),
                    "heap capacity " + c.heap().capacity() + " < configured " + pe.heapSize());
        });
    }

    /** Verifies §7.1: open/close cycles work and leak nothing / if it fails, look at what close leaves behind (threads, descriptors, mappings). */
    @Verifies("7.1")
    @Test
    void required_lifecycle_open_close_cycles() {
        spmd(pe -> {
            for (int cycle = 0; cycle < 4; cycle++) cycle(pe, cycle);
        });
    }

    /** Verifies §7.1: open/close cycles work and leak nothing / if it fails, look at what close leaves behind (threads, descriptors, mappings). */
    @Verifies("7.1")
    @Test
    void required_lifecycle_single_pe_open_close() {
        spmd(pe -> {
            for (int i = 0; i < 3; i++) {
                try (Communicator c = pe.connectSingle(Duration.ofSeconds(10))) {
                    assertEquals(0, c.rank(), "rank of a one-PE job");
                    assertEquals(1, c.size(), "size of a one-PE job");
                    try (SymmetricBuffer b = c.heap().allocate(4096)) {
                        c.rma().put(b, 0, Mem.patterned(4096, i), 0);
                        c.rma().quiet();
                        Mem.expectPattern(Mem.read(c, b, 0, 4096), i, "one-PE put to self");
                    }
                    c.barrier();
                }
            }
        });
    }

    /** Verifies §3.5: closing a communicator closes its live buffers / if it fails, look at the communicator's close. */
    @Verifies("3.5")
    @Test
    void required_lifecycle_close_releases_live_buffers() {
        spmd(pe -> {
            SymmetricBuffer kept;
            try (Communicator c = pe.connectAnother()) {
                kept = c.heap().allocate(1 << 16);
                assertTrue(kept.isOpen(), "fresh buffer is open");
            }
            assertFalse(kept.isOpen(), "a buffer still open when its communicator closed must report closed");
        });
    }

    /** Verifies §7.1: open/close cycles work and leak nothing / if it fails, look at what close leaves behind (threads, descriptors, mappings). */
    @Verifies("7.1")
    @Test
    void required_lifecycle_no_fd_leak() {
        spmd(pe -> {
            NotApplicable.unlessPlatform(Leaks.supported(), "no /proc here to count file descriptors");
            cycle(pe, 0); // warm-up: class loading may open jars lazily
            Set<String> before = Leaks.fds();
            for (int i = 1; i <= 4; i++) cycle(pe, i);
            Set<String> after = settle(Leaks::fds, before);
            Set<String> added = new TreeSet<>(after);
            added.removeAll(before);
            if (after.size() > before.size())
                throw new AssertionFailedError("4 open/close cycles left " + (after.size() - before.size())
                        + " more file descriptors open (" + before.size() + " -> " + after.size() + "); new: " + added);
        });
    }

    /** Verifies §7.1: open/close cycles work and leak nothing / if it fails, look at what close leaves behind (threads, descriptors, mappings). */
    @Verifies("7.1")
    @Test
    void required_lifecycle_no_thread_leak() {
        spmd(pe -> {
            cycle(pe, 0);
            Set<String> before = Leaks.threads();
            for (int i = 1; i <= 4; i++) cycle(pe, i);
            Set<String> after = settle(Leaks::threads, before);
            Set<String> added = new TreeSet<>(after);
            added.removeAll(before);
            if (!added.isEmpty()) throw new AssertionFailedError("4 open/close cycles left threads running: " + added);
        });
    }

    /** Verifies §7.1: open/close cycles work and leak nothing / if it fails, look at what close leaves behind (threads, descriptors, mappings). */
    @Verifies("7.1")
    @Test
    void required_lifecycle_no_shared_memory_leak() {
        spmd(pe -> {
            NotApplicable.unlessPlatform(Leaks.supported(), "no /proc here to list mappings");
            Set<String> before = Leaks.shmFiles();
            Set<String> used = new TreeSet<>();
            for (int i = 0; i < 3; i++) {
                try (Communicator c = pe.connectAnother()) {
                    try (SymmetricBuffer b = c.heap().allocate(1 << 20)) {
                        b.peer(c.rank()); // touch the mapping where a backend maps lazily
                        c.barrier();
                        used.addAll(Leaks.shmFiles());
                    }
                }
            }
            used.removeAll(before);
            Set<String> stillMapped = new TreeSet<>(settle(Leaks::shmFiles, before));
            stillMapped.retainAll(used);
            if (!stillMapped.isEmpty())
                throw new AssertionFailedError(
                        "closed communicators still map or hold open shared-memory files: " + stillMapped);
            Set<String> stillThere = new TreeSet<>();
            for (String f : used) if (java.nio.file.Files.exists(java.nio.file.Path.of(f))) stillThere.add(f);
            if (!stillThere.isEmpty())
                throw new AssertionFailedError(
                        "shared-memory files of closed communicators were not removed: " + stillThere);
            pe.report(used.size());
        });
    }

    /** One collective open, allocate, exchange, verify, free, close. */
    static void cycle(Pe pe, int seed) {
        try (Communicator c = pe.connectAnother()) {
            int n = c.size();
            try (SymmetricBuffer b = c.heap().allocate(1 << 16)) {
                c.rma().put(b, 0, Mem.patterned(1 << 16, seed * 16 + c.rank()), (c.rank() + 1) % n);
                c.rma().quiet();
                c.barrier();
                Mem.expectPattern(
                        Mem.read(c, b, 0, 1 << 16),
                        seed * 16 + (c.rank() + n - 1) % n,
                        "cycle " + seed + ": data from the left neighbour");
                c.barrier();
            }
        }
    }

    /** Gives asynchronous clean-up up to two seconds to bring a probe back to its baseline. */
    private static Set<String> settle(java.util.function.Supplier<Set<String>> probe, Set<String> baseline)
            throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        Set<String> now = probe.get();
        while (!baseline.containsAll(now) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            now = probe.get();
        }
        return now;
    }
}
