package dev.unicomm.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import dev.unicomm.testsupport.ProcessJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RingTest {

    @Test
    void singlePeRingTalksToItself() {
        try (Communicator comm = Unicomm.connect(CommConfig.single("shm").withHeapSize(1 << 20))) {
            assertEquals(
                    "PE 0 of 1: inbox from PE 0 says 'hello from PE 0'; token came back as 0 (expected 0)",
                    Ring.run(comm));
        }
    }

    /** What {@code unicomm run -n 4 -- dev.unicomm.examples.Ring} does, through the same launcher. */
    @Test
    void fourProcessRing() {
        ProcessJob.Finished job = ProcessJob.runMerged(JobSpec.of(4, Ring.class.getName())
                .withBackend("shm")
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", "1M"))
                .withJvmOptions(List.of("-XX:TieredStopAtLevel=1"))
                .withCommTimeout(Duration.ofSeconds(30))
                .withJobTimeout(Duration.ofSeconds(90)));
        JobResult r = job.result();
        String text = job.out();
        assertEquals(0, r.exitCode(), text);
        assertTrue(
                text.contains(
                        "[0] PE 0 of 4: inbox from PE 3 says 'hello from PE 3'; token came back as 6 (expected 6)"),
                text);
        for (int pe = 1; pe < 4; pe++)
            assertTrue(
                    text.contains("[" + pe + "] PE " + pe + " of 4: inbox from PE " + (pe - 1) + " says 'hello from PE "
                            + (pe - 1) + "'"),
                    text);
    }
}
