package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Issue 45, item 7: a partial set of launch variables is a one-line error, never a silent single-rank job. */
class PartialLaunchVariablesTest {
    private static CommConfig read(Map<String, String> env) {
        return CommConfig.fromEnvironment(env, new Properties());
    }

    /** Rank variable, size variable of every convention the reader supports. */
    private static final String[][] PAIRS = {
        {"UNICOMM_RANK", "UNICOMM_WORLD_SIZE"}, {"RANK", "WORLD_SIZE"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"},
    };

    private static void assertOneLineNaming(IllegalArgumentException e, String set, String missing) {
        String m = e.getMessage();
        assertTrue(m.contains(set) && m.contains(missing + " is not"), m);
        assertFalse(m.contains("\n"), m);
        assertEquals(0, e.getStackTrace().length, "a launch mistake prints as one line, without unicomm's frames");
        assertEquals(null, e.getCause());
    }

    @Test
    void aRankWithoutItsWorldSizeIsAnError() {
        for (String[] p : PAIRS) {
            var e = assertThrows(IllegalArgumentException.class, () -> read(Map.of(p[0], "1")), p[0]);
            assertOneLineNaming(e, p[0] + "=1", p[1]);
        }
    }

    @Test
    void aWorldSizeWithoutItsRankIsAnError() {
        for (String[] p : PAIRS) {
            var e = assertThrows(
                    IllegalArgumentException.class, () -> read(Map.of(p[1], "4", "UNICOMM_STORE", "h:1")), p[1]);
            assertOneLineNaming(e, p[1] + "=4", p[0]);
        }
    }

    @Test
    void rankZeroWithoutASizeIsAnErrorToo() {
        var e = assertThrows(IllegalArgumentException.class, () -> read(Map.of("RANK", "0", "LOCAL_RANK", "0")));
        assertOneLineNaming(e, "RANK=0", "WORLD_SIZE");
        assertTrue(e.getMessage().contains("LOCAL_RANK=0"), e.getMessage());
    }

    @Test
    void aPartialHigherConventionIsNotHiddenByACompleteLowerOne() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> read(Map.of(
                        "RANK",
                        "1",
                        "OMPI_COMM_WORLD_RANK",
                        "1",
                        "OMPI_COMM_WORLD_SIZE",
                        "2",
                        "UNICOMM_STORE",
                        "h:1")));
        assertOneLineNaming(e, "RANK=1", "WORLD_SIZE");
    }

    @Test
    void slurmTaskZeroWithoutATaskCountIsOneTask() {
        // sbatch without -n sets SLURM_PROCID=0 (and SLURM_LOCALID) but no SLURM_NTASKS.
        CommConfig c = read(Map.of("SLURM_PROCID", "0", "SLURM_LOCALID", "0"));
        assertEquals(0, c.rank());
        assertEquals(1, c.worldSize());
        var e = assertThrows(IllegalArgumentException.class, () -> read(Map.of("SLURM_PROCID", "3")));
        assertOneLineNaming(e, "SLURM_PROCID=3", "SLURM_NTASKS");
    }

    @Test
    void slurmsOlderTaskCountNameCompletesTheSet() {
        CommConfig c = read(Map.of("SLURM_PROCID", "2", "SLURM_NPROCS", "4", "UNICOMM_STORE", "h:1"));
        assertEquals(2, c.rank());
        assertEquals(4, c.worldSize());
    }

    @Test
    void aMultiRankJobWithoutAStoreSaysWhichVariablesToSetInOneLine() {
        for (String[] p : PAIRS) {
            var e = assertThrows(IllegalArgumentException.class, () -> read(Map.of(p[0], "0", p[1], "2")), p[0]);
            String m = e.getMessage();
            assertTrue(
                    m.contains("rank 0 of 2")
                            && m.contains(p[0] + "=0")
                            && m.contains("UNICOMM_STORE")
                            && m.contains("MASTER_ADDR")
                            && m.contains("MASTER_PORT"),
                    m);
            assertEquals(0, e.getStackTrace().length);
            assertEquals(null, e.getCause());
        }
    }

    @Test
    void halfOfTorchrunsStoreAddressIsAnError() {
        var noPort = assertThrows(
                IllegalArgumentException.class, () -> read(Map.of("RANK", "1", "WORLD_SIZE", "2", "MASTER_ADDR", "h")));
        assertTrue(
                noPort.getMessage().contains("MASTER_ADDR=h is set but MASTER_PORT is missing"), noPort.getMessage());
        var noAddr = assertThrows(
                IllegalArgumentException.class,
                () -> read(Map.of("RANK", "1", "WORLD_SIZE", "2", "MASTER_PORT", "29500")));
        assertTrue(
                noAddr.getMessage().contains("MASTER_PORT=29500 is set but MASTER_ADDR is missing"),
                noAddr.getMessage());
    }

    @Test
    void aSinglePeJobIgnoresAStrayStoreAddress() {
        assertEquals(1, read(Map.of("MASTER_ADDR", "h")).worldSize());
    }

    /** Issue 45, item 8: the job's identity comes from the launcher that gave the rank, so two jobs on one port stay apart. */
    @Test
    void theJobIdComesFromTheLauncherThatGaveTheRank() {
        assertEquals(
                "torchrun:abc",
                read(Map.of(
                                "RANK",
                                "0",
                                "WORLD_SIZE",
                                "2",
                                "MASTER_ADDR",
                                "h",
                                "MASTER_PORT",
                                "1",
                                "TORCHELASTIC_RUN_ID",
                                "abc",
                                "SLURM_JOB_ID",
                                "7"))
                        .property("job.id", null));
        assertEquals(
                null,
                read(Map.of(
                                "RANK",
                                "0",
                                "WORLD_SIZE",
                                "2",
                                "MASTER_ADDR",
                                "h",
                                "MASTER_PORT",
                                "1",
                                "TORCHELASTIC_RUN_ID",
                                "none"))
                        .property("job.id", null),
                "torchrun's default rendezvous id names no job");
        assertEquals(
                "slurm:7.3",
                read(Map.of(
                                "SLURM_PROCID",
                                "1",
                                "SLURM_NTASKS",
                                "2",
                                "SLURM_JOB_ID",
                                "7",
                                "SLURM_STEP_ID",
                                "3",
                                "UNICOMM_STORE",
                                "h:1"))
                        .property("job.id", null));
        assertEquals(
                "pmix:ns.1",
                read(Map.of(
                                "OMPI_COMM_WORLD_RANK",
                                "1",
                                "OMPI_COMM_WORLD_SIZE",
                                "2",
                                "PMIX_NAMESPACE",
                                "ns.1",
                                "UNICOMM_STORE",
                                "h:1"))
                        .property("job.id", null));
        assertEquals(
                "mine",
                read(Map.of(
                                "UNICOMM_RANK",
                                "1",
                                "UNICOMM_WORLD_SIZE",
                                "2",
                                "UNICOMM_STORE",
                                "h:1",
                                "UNICOMM_JOB_ID",
                                "mine",
                                "SLURM_JOB_ID",
                                "7"))
                        .property("job.id", null));
        assertEquals(
                null,
                read(Map.of(
                                "UNICOMM_RANK",
                                "1",
                                "UNICOMM_WORLD_SIZE",
                                "2",
                                "UNICOMM_STORE",
                                "h:1",
                                "SLURM_JOB_ID",
                                "7"))
                        .property("job.id", null),
                "a Slurm job around unicomm's own launch may span steps: not a job id");
    }
}
