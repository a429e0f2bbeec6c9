package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.FaultInjectionSuite;
import dev.unicomm.conformance.KitPlug;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link FaultInjectionSuite} on backend-shm with 4 ranks and a 10 s timeout, with the heap files in
 * a private tmpfs folder, so that what a killed rank leaves there can be checked.
 */
class ShmFaultInjectionTest extends FaultInjectionSuite {
    private static final Path DIR = ShmKit.heapFolder("unicomm-faultinj-shm-");
    static final KitPlug PLUG = ShmKit.withHeapFolder(4, DIR);

    /**
     * A rank killed inside its open (after creating its heap file) leaves nothing: the survivor that fails
     * in the same open removes the dead rank's file and the job's folder (issue #45 item 9; before, the file
     * stayed until the next start). The next start finds the folder empty and leaves it so.
     */
    @Test
    void required_faultinj_shm_heap_file_of_a_killed_rank_is_gone_when_the_open_fails() throws Exception {
        killInsideOpen();
        List<String> left = ShmKit.entries(DIR);
        for (long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                !left.isEmpty() && System.nanoTime() < end;
                left = ShmKit.entries(DIR)) Thread.sleep(50);
        assertEquals(List.of(), left, "entries in " + DIR + " once the open that lost a rank failed");
        spmd(pe -> pe.comm().barrier()); // the kit restarts the job
        assertEquals(List.of(), ShmKit.entries(DIR), "entries in " + DIR + " after the next start");
    }

    @AfterAll
    void removeFolder() throws IOException {
        ShmKit.removeFolder(DIR);
    }
}
