package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The store's address from what mpirun and srun give every rank (values as Open MPI 4.1 and Slurm 22.05 set them). */
class LauncherStoreTest {
    private static final Map<String, String> OMPI = Map.of(
            "OMPI_COMM_WORLD_RANK",
            "2",
            "OMPI_COMM_WORLD_SIZE",
            "4",
            "OMPI_MCA_orte_hnp_uri",
            "550174720.0;tcp://127.0.0.1:45661;tcp://10.77.0.1:45661;tcp6://[fd00::2]:50063",
            "OMPI_MCA_ess_base_jobid",
            "550174721",
            "OMPI_MCA_orte_precondition_transports",
            "903b55774aa64f7e-f2846bf833393e66");

    @Test
    void openMpiGivesMpirunsReachableAddressAPortFromTheJobAndItsKey() {
        LauncherStore.Derived d = LauncherStore.derive(OMPI, null).orElseThrow();
        assertEquals("10.77.0.1", d.host(), "the non-loopback address, which the other hosts can reach");
        assertEquals(LauncherStore.portOf("550174721"), d.port());
        assertTrue(d.port() >= LauncherStore.BASE_PORT && d.port() < LauncherStore.BASE_PORT + LauncherStore.PORT_SPAN);
        assertEquals("903b55774aa64f7e-f2846bf833393e66", d.token());
        assertEquals(4242, LauncherStore.derive(OMPI, "4242").orElseThrow().port(), "MASTER_PORT wins");
    }

    @Test
    void everyRankOfAJobGetsTheSamePortAndOtherJobsMostlyAnother() {
        assertEquals(LauncherStore.portOf("550174721"), LauncherStore.portOf("550174721"));
        long distinct = java.util.stream.IntStream.range(0, 100)
                .map(i -> LauncherStore.portOf(Integer.toString(550174721 + 65536 * i)))
                .distinct()
                .count();
        assertTrue(
                distinct >= 95,
                "100 consecutive Open MPI job ids should nearly all get ports of their own, got " + distinct);
    }

    @Test
    void withoutMpirunsAddressItSaysWhatToSet() {
        LauncherStore.Derived d = LauncherStore.derive(
                        Map.of("OMPI_COMM_WORLD_SIZE", "4", "OMPI_COMM_WORLD_RANK", "1"), null)
                .orElseThrow();
        assertNull(d.host());
        assertTrue(d.missing().contains("MASTER_ADDR") && d.missing().contains("MASTER_PORT"), d.missing());
    }

    @Test
    void slurmGivesTheStepsFirstNode() {
        Map<String, String> env = Map.of(
                "SLURM_PROCID",
                "3",
                "SLURM_NTASKS",
                "4",
                "SLURM_STEP_NODELIST",
                "node[0-1]",
                "SLURM_JOB_NODELIST",
                "node[0-3]",
                "SLURM_JOB_ID",
                "17",
                "SLURM_STEP_ID",
                "2");
        LauncherStore.Derived d = LauncherStore.derive(env, null).orElseThrow();
        assertEquals("node0", d.host());
        assertEquals(LauncherStore.portOf("17.2"), d.port());
        assertNull(d.token(), "Slurm gives no per-job secret");
        assertNotEquals(LauncherStore.portOf("17.2"), LauncherStore.portOf("17.3"), "two steps of one job");
    }

    @Test
    void slurmHostListsOfEveryShape() {
        assertEquals("gpu7", LauncherStore.firstHost("gpu7"));
        assertEquals("a1", LauncherStore.firstHost("a1,b2"));
        assertEquals("node3", LauncherStore.firstHost("node[3-5,7],gpu1"));
        assertEquals("node03-ib", LauncherStore.firstHost("node[03-05]-ib"));
        assertEquals("x", LauncherStore.firstHost("x,node[1-2]"));
        assertNull(LauncherStore.firstHost("node[3-5"));
    }

    @Test
    void orteUrisListReachableAddressesFirst() {
        assertEquals(
                List.of("10.0.0.5", "192.168.1.2", "127.0.0.1"),
                LauncherStore.tcpAddresses(
                        "1.0;tcp://127.0.0.1:1;tcp://10.0.0.5:1;tcp6://[fd00::2]:3;tcp://192.168.1.2:9"));
    }

    @Test
    void aBadMasterPortIsOneLine() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> LauncherStore.derive(OMPI, "99999"));
        assertEquals("MASTER_PORT must be a port number 1..65535, got '99999'", e.getMessage());
    }
}
