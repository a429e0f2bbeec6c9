package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The validating layer's JFR events, as a recording of one PE on the shm backend shows them. */
class FlightRecorderEventsTest {
    @TempDir
    Path dir;

    @Test
    void lifecycleBarrierAndRmaBatchesAreRecorded() throws Exception {
        Path file = dir.resolve("unicomm.jfr");
        try (Recording rec = new Recording()) {
            for (String e : List.of("CommunicatorOpen", "CommunicatorClose", "RmaBatch", "Barrier"))
                rec.enable("dev.unicomm." + e);
            rec.start();
            try (Communicator comm = Unicomm.connect(ShmJobs.singleRank(dir));
                    Arena arena = Arena.ofConfined()) {
                SymmetricBuffer buf = comm.heap().allocate(4096);
                Memory src = Memory.of(arena.allocate(256));
                for (int i = 0; i < 3; i++) comm.rma().put(buf, 0, src, 0, 100, 0);
                comm.rma().get(src, 0, buf, 0, 8, 0);
                comm.rma().atomicFetchAdd(buf, 512, 1, 0);
                comm.rma().quiet();
                comm.rma().quiet(); // an empty batch
                comm.barrier();
                buf.close();
            }
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertEquals(1, count(events, "dev.unicomm.CommunicatorOpen"));
        assertEquals(1, count(events, "dev.unicomm.CommunicatorClose"));
        assertEquals(1, count(events, "dev.unicomm.Barrier"));
        RecordedEvent open = first(events, "dev.unicomm.CommunicatorOpen");
        assertEquals("shm", open.getString("backend"));
        assertEquals(1, open.getInt("size"));

        List<RecordedEvent> batches = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.unicomm.RmaBatch"))
                .toList();
        assertEquals(2, batches.size(), "one event per quiet");
        RecordedEvent b =
                batches.stream().filter(e -> e.getLong("puts") > 0).findFirst().orElseThrow();
        assertEquals(3, b.getLong("puts"));
        assertEquals(300, b.getLong("putBytes"));
        assertEquals(1, b.getLong("gets"));
        assertEquals(8, b.getLong("getBytes"));
        assertEquals(1, b.getLong("atomics"));
        assertEquals(0, b.getInt("peer"));
        assertTrue(b.getLong("batchNanos") > 0);
        RecordedEvent empty = batches.stream().filter(e -> e != b).findFirst().orElseThrow();
        assertEquals(0, empty.getLong("puts") + empty.getLong("gets") + empty.getLong("atomics"));
        assertEquals(1, empty.getLong("quiets"));
    }

    @Test
    void throttledBatchesKeepTheirCountsForTheNextRecordedOne() throws Exception {
        Path file = dir.resolve("throttled.jfr");
        int quiets = 5000;
        try (Recording rec = new Recording()) {
            rec.enable("dev.unicomm.RmaBatch");
            rec.start();
            try (Communicator comm = Unicomm.connect(ShmJobs.singleRank(dir));
                    Arena arena = Arena.ofConfined();
                    SymmetricBuffer buf = comm.heap().allocate(64)) {
                Memory src = Memory.of(arena.allocate(8));
                for (int i = 0; i < quiets; i++) {
                    comm.rma().put(buf, 0, src, 0, 8, 0);
                    comm.rma().quiet();
                }
                // JFR's throttler samples adaptively: after a burst, a lone event in the next window is
                // likely dropped too. A slow trickle of empty quiets gets sampled, and the first recorded
                // one carries the burst's remaining counts.
                for (int i = 0; i < 300; i++) {
                    Thread.sleep(5);
                    comm.rma().quiet();
                }
            }
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> batches = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.unicomm.RmaBatch"))
                .toList();
        long puts = batches.stream().mapToLong(e -> e.getLong("puts")).sum();
        assertTrue(puts > 0 && puts <= quiets, "recorded puts: " + puts);
        assertTrue(
                batches.size() < quiets,
                "5000 quiets in well under a second must be throttled, got " + batches.size() + " events");
        assertTrue(
                batches.stream().anyMatch(e -> e.getLong("quiets") > 1 && e.getLong("puts") > 1),
                "a recorded event carries the counts of throttled quiets; events (quiets/puts): "
                        + batches.stream()
                                .map(e -> e.getLong("quiets") + "/" + e.getLong("puts"))
                                .toList());
        for (RecordedEvent e : batches) {
            // burst: one 8-byte put + one quiet per iteration; trickle: quiets without puts
            long q = e.getLong("quiets"), p = e.getLong("puts");
            assertTrue(p <= q, "an event covering " + q + " quiets cannot hold more puts, got " + p);
            assertEquals(8 * p, e.getLong("putBytes"));
        }
    }

    private static long count(List<RecordedEvent> events, String name) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(name))
                .count();
    }

    private static RecordedEvent first(List<RecordedEvent> events, String name) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
