package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Symmetric heap: collective allocation, equal offsets, alignment, accounting, exhaustion. */
public abstract class HeapSuite extends KitSuite {

    /** Verifies §3.1: allocation and free work as a collective / if it fails, look at the symmetric allocator. */
    @Verifies("3.1")
    @Test
    void required_heap_allocate_free() {
        spmd(pe -> {
            Communicator c = pe.comm();
            SymmetricBuffer b = c.heap().allocate(1000);
            assertTrue(b.isOpen(), "new buffer is open");
            assertEquals(1000, b.byteSize(), "byteSize");
            assertEquals(c.heap().kind(), b.kind(), "buffer kind vs heap kind");
            b.close();
            assertFalse(b.isOpen(), "freed buffer reports closed");
        });
    }

    /** Verifies §3.1: a buffer has the same offset on every PE / if it fails, look at the allocator's determinism across PEs. */
    @Verifies("3.1")
    @Test
    void required_heap_same_offsets_everywhere() {
        var results = spmd(pe -> {
            Communicator c = pe.comm();
            List<SymmetricBuffer> bufs = new ArrayList<>();
            StringBuilder offsets = new StringBuilder();
            long[] sizes = {1, 100, 4096, 12345, 1 << 20, 8, 0, 77};
            for (long s : sizes) {
                SymmetricBuffer b = c.heap().allocate(s);
                bufs.add(b);
                offsets.append(b.offset()).append(',');
            }
            // free out of order, allocate again: offsets must still agree
            bufs.remove(3).close();
            bufs.remove(1).close();
            SymmetricBuffer again = c.heap().allocate(5000);
            offsets.append(again.offset());
            List<SymmetricBuffer> live = new ArrayList<>(bufs);
            live.add(again);
            for (SymmetricBuffer b : live)
                assertTrue(
                        b.offset() >= 0,
                        "offset " + b.offset() + " is negative: offsets count from the start of the heap");
            again.close();
            for (SymmetricBuffer b : bufs) b.close();
            pe.report(offsets);
        });
        assertSameOnAllRanks("heap offsets of the same allocation sequence", results);
    }

    /** Verifies §3.2: buffers are aligned as promised / if it fails, look at the allocator's alignment rounding. */
    @Verifies("3.2")
    @Test
    void required_heap_default_alignment() {
        spmd(pe -> {
            Communicator c = pe.comm();
            List<SymmetricBuffer> bufs = new ArrayList<>();
            for (long s : new long[] {1, 3, 65, 100, 7}) {
                SymmetricBuffer b = c.heap().allocate(s);
                bufs.add(b);
                assertEquals(
                        0,
                        b.offset() % SymmetricHeap.DEFAULT_ALIGNMENT,
                        "offset " + b.offset() + " of a " + s + "-byte buffer is not " + SymmetricHeap.DEFAULT_ALIGNMENT
                                + "-aligned");
                if (b.kind().isHost() && b.segment().isNative())
                    assertEquals(
                            0,
                            b.segment().address() % SymmetricHeap.DEFAULT_ALIGNMENT,
                            "address of a " + s + "-byte buffer");
            }
            for (SymmetricBuffer b : bufs) b.close();
        });
    }

    /** Verifies §3.2: buffers are aligned as promised / if it fails, look at the allocator's alignment rounding. */
    @Verifies("3.2")
    @Test
    void required_heap_explicit_alignments() {
        spmd(pe -> {
            Communicator c = pe.comm();
            List<SymmetricBuffer> bufs = new ArrayList<>();
            for (long a = 1; a <= 1 << 16; a <<= 1) {
                SymmetricBuffer pad = c.heap().allocate(3, 1);
                SymmetricBuffer b = c.heap().allocate(24, a);
                bufs.add(pad);
                bufs.add(b);
                assertEquals(0, b.offset() % a, "offset " + b.offset() + " with alignment " + a);
            }
            for (SymmetricBuffer b : bufs) b.close();
        });
    }

    /** Verifies §3.1: allocation and free work as a collective / if it fails, look at the symmetric allocator. */
    @Verifies("3.1")
    @Test
    void required_heap_zero_bytes() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(0)) {
                assertEquals(0, b.byteSize(), "byteSize of an empty buffer");
                c.rma().put(b, 0, MemorySegment.ofArray(new byte[0]), (c.rank() + 1) % c.size());
                c.rma().quiet();
                c.barrier();
            }
        });
    }

    /** Verifies §3.2: live buffers never overlap / if it fails, look at the allocator's free lists. */
    @Verifies("3.2")
    @Test
    void required_heap_buffers_disjoint() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer a = c.heap().allocate(4096);
                    SymmetricBuffer b = c.heap().allocate(4096)) {
                assertTrue(
                        a.offset() + a.byteSize() <= b.offset() || b.offset() + b.byteSize() <= a.offset(),
                        "live buffers overlap: [" + a.offset() + "+4096) and [" + b.offset() + "+4096)");
                Mem.clear(c, a, (byte) 0x11);
                Mem.clear(c, b, (byte) 0x22);
                Mem.expectFilled(Mem.read(c, a, 0, 4096), (byte) 0x11, "first buffer after writing the second");
            }
        });
    }

    /** Verifies §3.1: allocation and free work as a collective / if it fails, look at the symmetric allocator. */
    @Verifies("3.1")
    @Test
    void required_heap_local_segment_writable() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(8192)) {
                MemorySegment src = Mem.patterned(8192, c.rank() + 3);
                Mem.write(c, b, 0, src);
                Mem.expectPattern(Mem.read(c, b, 0, 8192), c.rank() + 3, "own part after a local write");
                if (b.kind().isHost()) assertEquals(8192, b.segment().byteSize(), "local segment size");
            }
        });
    }

    /** Verifies §3.1: allocation and free work as a collective / if it fails, look at the symmetric allocator. */
    @Verifies("3.1")
    @Test
    void required_heap_used_accounting() {
        spmd(pe -> {
            SymmetricHeap h = pe.comm().heap();
            long before = h.used();
            SymmetricBuffer b = h.allocate(100_000);
            assertTrue(h.used() >= before + 100_000, "used() grew by " + (h.used() - before) + " for 100000 bytes");
            assertTrue(h.used() <= h.capacity(), "used() " + h.used() + " exceeds capacity " + h.capacity());
            b.close();
            assertEquals(before, h.used(), "used() after freeing");
        });
    }

    /** Verifies §3.1: allocation and free work as a collective / if it fails, look at the symmetric allocator. */
    @Verifies("3.1")
    @Test
    void required_heap_reuse_after_free() {
        spmd(pe -> {
            SymmetricHeap h = pe.comm().heap();
            long quarter = (h.capacity() - h.used()) / 4;
            for (int i = 0; i < 25; i++) {
                SymmetricBuffer b = h.allocate(quarter);
                SymmetricBuffer d = h.allocate(quarter);
                d.close();
                b.close();
            }
        });
    }

    /** Verifies §3.4: running out of heap throws OutOfSymmetricMemoryException and the heap stays usable / if it fails, look at the allocator's capacity accounting. */
    @Verifies("3.4")
    @Test
    void required_heap_out_of_memory_reported() {
        spmd(pe -> {
            Communicator c = pe.comm();
            SymmetricHeap h = c.heap();
            long used = h.used();
            var e = assertThrows(
                    OutOfSymmetricMemoryException.class,
                    () -> h.allocate(h.capacity() + 1),
                    "allocating more than the heap holds");
            assertTrue(
                    e.getMessage().contains(Long.toString(h.capacity() + 1)),
                    "message names the request: " + e.getMessage());
            assertEquals(used, h.used(), "a failed allocation must not change used()");
            // the heap and the job go on working
            try (SymmetricBuffer b = h.allocate(4096)) {
                c.rma().put(b, 0, Mem.patterned(4096, 9), (c.rank() + 1) % c.size());
                c.barrier();
                Mem.expectPattern(Mem.read(c, b, 0, 4096), 9, "put after an out-of-memory failure");
            }
        });
    }

    /** Verifies §3.4: running out of heap throws OutOfSymmetricMemoryException and the heap stays usable / if it fails, look at the allocator's capacity accounting. */
    @Verifies("3.4")
    @Test
    void required_heap_fill_to_capacity() {
        spmd(pe -> {
            SymmetricHeap h = pe.comm().heap();
            List<SymmetricBuffer> bufs = new ArrayList<>();
            long chunk = h.capacity() / 16;
            try {
                while (true) bufs.add(h.allocate(chunk));
            } catch (OutOfSymmetricMemoryException expected) {
                assertTrue(bufs.size() >= 8, "only " + bufs.size() + " chunks of capacity/16 fit into an empty heap");
            } finally {
                for (SymmetricBuffer b : bufs) b.close();
            }
        });
    }

    /** Verifies §3.2: direct peer access maps the peers' buffers / if it fails, look at SymmetricBuffer.peer. */
    @Verifies("3.2")
    @Test
    void optional_heap_direct_peer_access() {
        spmd(Capability.DIRECT_PEER_ACCESS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(4096)) {
                MemorySegment peer = b.peer(right)
                        .orElseThrow(() -> new AssertionError(
                                "peer(" + right + ") is empty although DIRECT_PEER_ACCESS is declared"));
                assertEquals(4096, peer.byteSize(), "peer segment size");
                MemorySegment.copy(Mem.patterned(4096, 40 + c.rank()), 0, peer, 0, 4096);
                c.barrier();
                Mem.expectPattern(
                        Mem.read(c, b, 0, 4096), 40 + (c.rank() + c.size() - 1) % c.size(), "stores through peer()");
                c.barrier();
            }
        });
    }

    /** Verifies §3.2: direct peer access maps the peers' buffers / if it fails, look at SymmetricBuffer.peer. */
    @Verifies("3.2")
    @Test
    void optional_heap_peer_self_aliases_local() {
        spmd(Capability.DIRECT_PEER_ACCESS, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(64)) {
                MemorySegment self = b.peer(c.rank())
                        .orElseThrow(() ->
                                new AssertionError("peer(own rank) is empty although DIRECT_PEER_ACCESS is declared"));
                Mem.write(c, b, 0, Mem.patterned(64, 5));
                Mem.expectPattern(self.asSlice(0, 64), 5, "peer(own rank) must alias the local part");
            }
        });
    }

    /**
     * Verifies §3.3 (closing a buffer completes the caller's RMA to it first) / if it fails, look at
     * SymmetricBuffer.close: a put issued before close landed after it, in memory handed out again.
     */
    @Verifies("3.3")
    @Test
    void required_heap_close_completes_puts() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            long n = 1 << 16;
            InStep step = new InStep(); // a rank that found the late put stays in step with the collective frees
            for (int round = 0; round < 3; round++) {
                SymmetricBuffer first = c.heap().allocate(n);
                Mem.clear(c, first, (byte) 0);
                c.barrier();
                c.rma().put(first, 0, dev.unicomm.api.Memory.of(Mem.patterned(n, 40 + c.rank())), 0, n, right);
                first.close(); // collective; no quiet and no barrier before it
                try (SymmetricBuffer next = c.heap().allocate(n)) {
                    Mem.clear(c, next, (byte) 0x5A);
                    c.barrier();
                    c.rma().quiet();
                    c.barrier();
                    int r = round;
                    step.check(
                            () -> Mem.expectFilled(
                                    Mem.read(c, next, 0, n),
                                    (byte) 0x5A,
                                    "round " + r
                                            + ": a buffer allocated after close (close must complete the puts to the closed buffer)"));
                    c.barrier();
                }
            }
            step.rethrow();
        });
    }
}
