package dev.unicomm.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(300)
class ProcessJobTest {
    private static JobSpec spec(String... args) {
        return JobSpec.of(2, PrintingRank.class.getName(), args)
                .withJvmOptions(List.of("-XX:TieredStopAtLevel=1"))
                .withJobTimeout(Duration.ofSeconds(120))
                .withKillGrace(Duration.ofSeconds(60));
    }

    @Test
    void keepsEachRanksLinesOnTheirStreamWithTheRankPrefix() {
        ProcessJob.Finished f = ProcessJob.run(spec());
        assertEquals(0, f.exitCode(), f.log());
        assertTrue(f.out().contains("[0] out of rank 0 of 2") && f.out().contains("[1] out of rank 1 of 2"), f.out());
        assertTrue(f.err().contains("[1] err of rank 1") && !f.out().contains("err of rank"), f.log());
        assertEquals("out of rank 1 of 2\n", f.rankOutput(1), f.log());
    }

    @Test
    void aFailingRanksCodeIsTheJobsAndMergedOutputKeepsBothStreams() {
        ProcessJob.Finished f = ProcessJob.runMerged(spec("1", "7"));
        assertEquals(7, f.exitCode(), f.log());
        assertEquals(7, f.rankExitCodes().get(1), f.log());
        assertTrue(f.out().contains("[0] err of rank 0") && f.out().contains("[1] out of rank 1"), f.out());
        assertEquals("", f.err());
        var rank1 = f.ranks().get(1);
        assertEquals(7, rank1.exitCode());
        assertTrue(
                rank1.output().contains("out of rank 1 of 2\n")
                        && rank1.output().contains("err of rank 1\n"),
                rank1.output());
    }
}
