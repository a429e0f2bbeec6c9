package dev.unicomm.backend.ascend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.NativeCallException;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.backend.ascend.internal.AscendSettings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One PE on the stand-in test double: the binding's lifecycle, marshalling, staging, streams and
 * error mapping, through the validating API. (Two-PE behaviour runs in the conformance kit.)
 */
class SinglePeStandInTest {

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + seed);
        return b;
    }

    /** Reads a device-heap buffer back through the ACL runtime (the host cannot dereference it). */
    private static byte[] read(Communicator c, Memory m, long offset, int n) {
        byte[] out = new byte[n];
        c.device().copy(Memory.of(MemorySegment.ofArray(out)), 0, m, offset, n);
        return out;
    }

    @Test
    void openCloseCyclesLeaveNothingBehind() {
        for (int i = 0; i < 3; i++) {
            try (Communicator c = StandIn.open(Map.of())) {
                assertEquals(0, c.rank());
                assertEquals(1, c.size());
                assertEquals(MemoryKind.ascend(0), c.heap().kind());
                SymmetricBuffer b = c.heap().allocate(1000);
                b.close();
            }
        }
    }

    @Test
    void putAndGetThroughTheStagingBufferInChunks() {
        // 64 KiB staging, 200 000 bytes: four chunks each way, from a Java heap array (no address).
        try (Communicator c = StandIn.open(Map.of(AscendSettings.STAGING_SIZE, "64K"))) {
            byte[] data = pattern(200_000, 7);
            try (SymmetricBuffer buf = c.heap().allocate(200_000)) {
                assertThrows(IllegalStateException.class, buf::segment, "device heap: the host cannot dereference it");
                Memory self = buf.peerMemory(0).orElseThrow();
                assertEquals(buf.address(), self.address(), "aclshmem_ptr to this PE is the buffer itself");
                assertEquals(MemoryKind.ascend(0), self.kind());
                assertTrue(buf.peer(0).isEmpty(), "device memory has no host segment");
                c.rma().put(buf, 0, MemorySegment.ofArray(data), 0);
                c.rma().quiet();
                assertArrayEquals(data, read(c, buf, 0, data.length));
                byte[] back = new byte[200_000];
                c.rma().get(MemorySegment.ofArray(back), buf, 0, 0);
                assertArrayEquals(data, back);
                try (Arena a = Arena.ofConfined()) { // a native host segment goes straight to aclrtMemcpy
                    MemorySegment seg = a.allocate(100);
                    c.rma().get(Memory.of(seg), 0, buf, 1000, 100, 0);
                    assertArrayEquals(
                            java.util.Arrays.copyOfRange(data, 1000, 1100), seg.toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
    }

    @Test
    void deviceOperandsGoStraightToAclshmemAndNbiCompletesAtQuiet() {
        try (Communicator c = StandIn.open(Map.of())) {
            DeviceRuntime d = c.device();
            byte[] data = pattern(4096, 3);
            try (SymmetricBuffer buf = c.heap().allocate(8192);
                    DeviceBuffer src = d.allocate(4096);
                    DeviceBuffer dst = d.allocate(4096)) {
                d.copy(src, 0, Memory.of(MemorySegment.ofArray(data)), 0, 4096);
                c.rma().putNbi(buf, 4096, src, 0, 4096, 0);
                c.rma().quiet();
                c.rma().getNbi(dst, 0, buf, 4096, 4096, 0);
                c.rma().quiet();
                assertArrayEquals(data, read(c, dst, 0, 4096));
                d.fill(dst, 10, 20, (byte) 0x5a);
                byte[] filled = read(c, dst, 0, 4096);
                assertEquals(0x5a, filled[10]);
                assertEquals(0x5a, filled[29]);
                assertEquals(data[30], filled[30]);
            }
        }
    }

    @Test
    void signalsAre32BitAndValuesOutsideThatRangeAreRejected() {
        try (Communicator c = StandIn.open(Map.of())) {
            try (SymmetricBuffer data = c.heap().allocate(64);
                    SymmetricBuffer sig = c.heap().allocate(16)) {
                c.device().fill(sig, 0, 16, (byte) 0);
                byte[] payload = pattern(64, 1);
                c.rma()
                        .putSignal(
                                data, 0, Memory.of(MemorySegment.ofArray(payload)), 0, 64, sig, 8, 41, SignalOp.SET, 0);
                c.rma().putSignal(data, 0, Memory.of(MemorySegment.ofArray(payload)), 0, 0, sig, 8, 1, SignalOp.ADD, 0);
                assertEquals(42, c.rma().signalWaitUntil(sig, 8, Cmp.EQ, 42));
                assertArrayEquals(payload, read(c, data, 0, 64));
                // ADD wraps modulo 2^32, as aclshmem's int32 signal does.
                c.rma()
                        .putSignal(
                                data,
                                0,
                                Memory.of(MemorySegment.ofArray(payload)),
                                0,
                                0,
                                sig,
                                0,
                                Integer.MAX_VALUE,
                                SignalOp.SET,
                                0);
                c.rma().putSignal(data, 0, Memory.of(MemorySegment.ofArray(payload)), 0, 0, sig, 0, 1, SignalOp.ADD, 0);
                assertEquals(Integer.MIN_VALUE, c.rma().signalFetch(sig, 0));
                // The word's other four bytes are not the signal's: they stay as they were.
                byte[] word = read(c, sig, 8, 8);
                assertEquals(0, word[4] | word[5] | word[6] | word[7]);

                var tooBig = assertThrows(IllegalArgumentException.class, () -> c.rma()
                        .putSignal(
                                data,
                                0,
                                Memory.of(MemorySegment.ofArray(payload)),
                                0,
                                8,
                                sig,
                                0,
                                1L << 32,
                                SignalOp.SET,
                                0));
                assertTrue(tooBig.getMessage().contains("32-bit"), tooBig.getMessage());
                assertThrows(
                        IllegalArgumentException.class, () -> c.rma().signalWaitUntil(sig, 0, Cmp.GE, -(1L << 40)));
            }
        }
    }

    @Test
    void waitUntilTimesOutInsteadOfHanging() {
        try (Communicator c = StandIn.open(Map.of(), Duration.ofMillis(300), 16L << 20)) {
            try (SymmetricBuffer sig = c.heap().allocate(8)) {
                c.device().fill(sig, 0, 8, (byte) 0);
                long t0 = System.nanoTime();
                var e = assertThrows(CommTimeoutException.class, () -> c.rma().signalWaitUntil(sig, 0, Cmp.EQ, 5));
                assertTrue(e.getMessage().contains("signalWaitUntil"), e.getMessage());
                assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
                // The discarded wait left the stream usable.
                c.rma()
                        .putSignal(
                                sig,
                                0,
                                Memory.of(MemorySegment.ofArray(new byte[0])),
                                0,
                                0,
                                sig,
                                0,
                                5,
                                SignalOp.SET,
                                0);
                assertEquals(5, c.rma().signalWaitUntil(sig, 0, Cmp.EQ, 5));
            }
        }
    }

    @Test
    void aWaitingThreadDoesNotHoldUpAnotherThreadsQuiet() throws Exception {
        try (Communicator c = StandIn.open(Map.of(), Duration.ofSeconds(5), 16L << 20)) {
            try (SymmetricBuffer sig = c.heap().allocate(8)) {
                c.device().fill(sig, 0, 8, (byte) 0);
                var waiter = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> c.rma().signalWaitUntil(sig, 0, Cmp.EQ, 1));
                Thread.sleep(200); // the waiter is inside its wait now
                long t0 = System.nanoTime();
                c.rma().quiet();
                assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "quiet queued behind another thread's wait-until");
                c.rma()
                        .putSignal(
                                sig,
                                0,
                                Memory.of(MemorySegment.ofArray(new byte[0])),
                                0,
                                0,
                                sig,
                                0,
                                1,
                                SignalOp.SET,
                                0);
                assertEquals(1, waiter.get(10, java.util.concurrent.TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void streamOrderedRmaRunsOnTheUsersStream() {
        try (Communicator c = StandIn.open(Map.of())) {
            DeviceRuntime d = c.device();
            byte[] data = pattern(1024, 9);
            try (SymmetricBuffer buf = c.heap().allocate(1024);
                    SymmetricBuffer sig = c.heap().allocate(8);
                    DeviceBuffer src = d.allocate(1024);
                    Stream s = d.createStream()) {
                d.fill(sig, 0, 8, (byte) 0);
                d.copy(src, 0, Memory.of(MemorySegment.ofArray(data)), 0, 1024);
                var onStream = c.rma().on(s);
                onStream.putSignal(buf, 0, src, 0, 1024, sig, 0, 7, SignalOp.SET, 0);
                onStream.quiet();
                s.synchronize();
                assertEquals(7, onStream.signalWaitUntil(sig, 0, Cmp.GE, 7));
                assertArrayEquals(data, read(c, buf, 0, 1024));
                // A host operand on a stream: staged, so the view completes it before returning.
                byte[] host = pattern(512, 4);
                onStream.put(buf, 512, MemorySegment.ofArray(host), 0);
                assertArrayEquals(host, read(c, buf, 512, 512));
                c.world().barrier();
                c.world().barrier(s); // enqueued: aclshmemx_barrier_on_stream
                s.synchronize();
            }
            assertFalse(d.createStream().handle() == 0, "an owned stream has a real aclrtStream handle");
            // A handle ACL does not know is refused with ACL's error before any aclshmem call sees it.
            var bogus = assertThrows(NativeCallException.class, () -> d.wrapStream(0xdead0));
            assertEquals("aclrtStreamQuery", bogus.call());
            try (Stream dflt = d.wrapStream(0)) {
                dflt.synchronize();
            }
        }
    }

    @Test
    void teamsSplitAndTranslateThroughAclshmem() {
        try (Communicator c = StandIn.open(Map.of())) {
            Team world = c.world();
            try (Team t = world.split(0, 1, 1)) {
                assertEquals(0, t.rank());
                assertEquals(1, t.size());
                assertEquals(0, t.worldRank(0));
                assertEquals(0, t.translate(0, world));
                t.barrier();
            }
            Team.Split2d grid = world.split2d(4);
            assertEquals(1, grid.x().size());
            assertEquals(1, grid.y().size());
            grid.x().close();
            grid.y().close();
        }
    }

    @Test
    void atomicsAreNotOffered() {
        try (Communicator c = StandIn.open(Map.of())) {
            assertFalse(c.has(Capability.ATOMICS));
            try (SymmetricBuffer b = c.heap().allocate(8)) {
                var e = assertThrows(
                        UnsupportedCapabilityException.class, () -> c.rma().atomicFetchAdd(b, 0, 1, 0));
                assertEquals(Capability.ATOMICS, e.capability());
            }
        }
    }

    @Test
    void nativeFailuresNameTheCallAndTheCode() {
        try (Communicator c = StandIn.open(Map.of())) {
            // The stand-in's "device" has 1 GiB: aclrtMalloc reports ACL_ERROR_RT_MEMORY_ALLOCATION.
            var e = assertThrows(NativeCallException.class, () -> c.device().allocate(2L << 30));
            assertEquals("aclrtMalloc", e.call());
            assertEquals(207001, e.code());
            assertTrue(e.getMessage().contains("ACL_ERROR_RT_MEMORY_ALLOCATION"), e.getMessage());
            // Team slots run out in the library (the stand-in has 64): aclshmem's error, not a crash.
            NativeCallException split = null;
            for (int i = 0; i < 100 && split == null; i++) {
                try {
                    c.world().split(0, 1, 1);
                } catch (NativeCallException x) {
                    split = x;
                }
            }
            assertTrue(split != null, "the stand-in has 64 team slots");
            assertEquals("aclshmem_team_split_strided", split.call());
            assertEquals(-4, split.code());
            assertTrue(split.getMessage().contains("ACLSHMEM_INNER_ERROR"), split.getMessage());
        }
    }

    @Test
    void theHeapRefusesWhatItCannotHold() {
        try (Communicator c = StandIn.open(Map.of(), Duration.ofSeconds(20), 4L << 20)) {
            var e = assertThrows(
                    OutOfSymmetricMemoryException.class, () -> c.heap().allocate(5L << 20));
            assertTrue(e.getMessage().contains("symmetric heap exhausted"), e.getMessage());
            try (SymmetricBuffer a = c.heap().allocate(1 << 20);
                    SymmetricBuffer b = c.heap().allocate(1 << 20, 4096)) {
                assertEquals(0, b.offset() % 4096);
                assertTrue(b.offset() >= a.offset() + a.byteSize());
            }
        }
    }

    @Test
    void aHostSideHeapIsLoadStoreReachable() {
        try (Communicator c = StandIn.open(Map.of(AscendSettings.HEAP_SIDE, "host"))) {
            assertEquals(MemoryKind.HOST, c.heap().kind());
            try (SymmetricBuffer b = c.heap().allocate(256)) {
                byte[] data = pattern(256, 5);
                c.rma().put(b, 0, MemorySegment.ofArray(data), 0);
                c.rma().quiet();
                assertArrayEquals(data, b.segment().toArray(ValueLayout.JAVA_BYTE));
                MemorySegment self = b.peer(0).orElseThrow();
                assertEquals(data[17], self.get(ValueLayout.JAVA_BYTE, 17));
            }
        }
    }

    @Test
    void theTlsSwitchReachesAscendShmemBeforeInit() throws Exception {
        try (Communicator c = StandIn.open(Map.of(AscendSettings.TLS, "false"))) {
            assertEquals(1, c.size());
        }
        try (Communicator c = StandIn.open(Map.of("unicomm.ascend.tls.ca.path", "/etc/ssl/certs/"))) {
            assertEquals(1, c.size());
        }
        List<String> trace = StandIn.trace();
        int off = indexOf(trace, "aclshmemx_set_conf_store_tls enable=0 info=");
        int on = indexOf(trace, "aclshmemx_set_conf_store_tls enable=1 info=tlsCaPath: /etc/ssl/certs/");
        assertTrue(off >= 0 && on > off, String.join("\n", trace));
        assertTrue(
                trace.get(off + 1).startsWith("aclshmemx_init_attr")
                        && trace.get(off + 1).contains("tls=0"),
                trace.get(off + 1));
        assertTrue(
                trace.get(on + 1).startsWith("aclshmemx_init_attr")
                        && trace.get(on + 1).contains("tls=1"),
                trace.get(on + 1));
    }

    @Test
    void theTlsPrivateKeyGoesToAscendShmemAndNeverIntoItsTrace() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ascend-tls");
        try {
            checkTlsKeyFiles(dir);
        } finally {
            for (String f : List.of("key.pem", "pw.txt")) java.nio.file.Files.deleteIfExists(dir.resolve(f));
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    private static void checkTlsKeyFiles(java.nio.file.Path dir) throws Exception {
        java.nio.file.Path key =
                java.nio.file.Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----secret");
        java.nio.file.Path pw = java.nio.file.Files.writeString(dir.resolve("pw.txt"), "hunter2");
        try (Communicator c = StandIn.open(Map.of(
                AscendSettings.TLS_PRIVATE_KEY_FILE,
                key.toString(),
                AscendSettings.TLS_PRIVATE_KEY_PASSWORD_FILE,
                pw.toString()))) {
            assertEquals(1, c.size());
        }
        List<String> trace = StandIn.trace();
        String expected = "aclshmemx_set_config_store_tls_key pk_len=" + java.nio.file.Files.size(key) + " pw_len="
                + java.nio.file.Files.size(pw) + " handler=0";
        assertTrue(trace.contains(expected), expected + " missing from the trace: " + trace);
        assertFalse(String.join("\n", trace).contains("secret"));
        var missing = assertThrows(
                IllegalArgumentException.class,
                () -> StandIn.open(Map.of(
                        AscendSettings.TLS_PRIVATE_KEY_FILE,
                        dir.resolve("none.pem").toString())));
        assertTrue(missing.getMessage().contains("cannot be read"), missing.getMessage());
    }

    private static int indexOf(List<String> lines, String start) {
        for (int i = lines.size() - 1; i >= 0; i--) if (lines.get(i).startsWith(start)) return i;
        return -1;
    }
}
