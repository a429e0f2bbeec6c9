package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Environment conventions: unicomm's own, torchrun's, Open MPI's, Slurm's. */
class CommConfigTest {
    private static CommConfig read(Map<String, String> env) {
        return CommConfig.fromEnvironment(env, new Properties());
    }

    @Test
    void nothingSetIsASinglePe() {
        CommConfig c = read(Map.of());
        assertEquals(0, c.rank());
        assertEquals(1, c.worldSize());
        assertNull(c.backend());
    }

    @Test
    void unicommVariablesWin() {
        CommConfig c = read(Map.of(
                "UNICOMM_RANK",
                "2",
                "UNICOMM_WORLD_SIZE",
                "4",
                "UNICOMM_STORE",
                "10.0.0.1:29500",
                "RANK",
                "0",
                "WORLD_SIZE",
                "8",
                "UNICOMM_BACKEND",
                "shm",
                "UNICOMM_TIMEOUT",
                "500ms",
                "UNICOMM_HEAP_SIZE",
                "64M"));
        assertEquals(2, c.rank());
        assertEquals(4, c.worldSize());
        assertEquals("10.0.0.1", c.storeHost());
        assertEquals(29500, c.storePort());
        assertEquals("shm", c.backend());
        assertEquals(Duration.ofMillis(500), c.timeout());
        assertEquals(64L << 20, c.heapSize());
    }

    @Test
    void backendSettingsAreFoundByTheirKeyFromVariablesAndProperties() {
        CommConfig env = read(Map.of(
                "UNICOMM_NVSHMEM_MOE_SMS", "24", "UNICOMM_NVSHMEM_BOUNCEBYTES", "1024", "UNICOMM_RDMA_GID_INDEX", "3"));
        assertEquals("24", env.property("nvshmem.moe.sms", null));
        assertEquals("1024", env.property("nvshmem.bounceBytes", null));
        assertEquals("3", env.property("rdma.gid_index", null));
        assertEquals("fallback", env.property("nvshmem.device", "fallback"));
        Properties p = new Properties();
        p.setProperty("unicomm.nvshmem.moe.sms", "64");
        assertEquals(
                "64",
                CommConfig.fromEnvironment(Map.of("UNICOMM_NVSHMEM_MOE_SMS", "24"), p)
                        .property("nvshmem.moe.sms", null),
                "a system property overrides the variable");
    }

    @Test
    void torchrunConvention() {
        CommConfig c = read(Map.of(
                "RANK", "3", "WORLD_SIZE", "4", "LOCAL_RANK", "1", "MASTER_ADDR", "host", "MASTER_PORT", "1234"));
        assertEquals(3, c.rank());
        assertEquals(1, c.localRank());
        assertEquals("host", c.storeHost());
        assertEquals(1234, c.storePort());
    }

    @Test
    void openMpiAndSlurmConventions() {
        CommConfig ompi =
                read(Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "UNICOMM_STORE", "h:1"));
        assertEquals(1, ompi.rank());
        CommConfig slurm =
                read(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "6", "SLURM_LOCALID", "1", "UNICOMM_STORE", "h:1"));
        assertEquals(5, slurm.rank());
        assertEquals(6, slurm.worldSize());
        assertEquals(1, slurm.localRank());
    }

    @Test
    void systemPropertiesOverrideEnvironment() {
        Properties p = new Properties();
        p.setProperty("unicomm.backend", "rdma");
        assertEquals(
                "rdma",
                CommConfig.fromEnvironment(Map.of("UNICOMM_BACKEND", "shm"), p).backend());
    }

    @Test
    void badValuesSayWhatWasWrong() {
        var e = assertThrows(IllegalArgumentException.class, () -> read(Map.of("RANK", "x", "WORLD_SIZE", "2")));
        assertTrue(e.getMessage().contains("RANK"), e.getMessage());
        var r = assertThrows(
                IllegalArgumentException.class,
                () -> read(Map.of("RANK", "4", "WORLD_SIZE", "4", "UNICOMM_STORE", "h:1")));
        assertTrue(r.getMessage().contains("rank must be in [0, 4)"), r.getMessage());
        var s = assertThrows(IllegalArgumentException.class, () -> read(Map.of("RANK", "0", "WORLD_SIZE", "4")));
        assertTrue(s.getMessage().contains("rendezvous store"), s.getMessage());
        assertThrows(IllegalArgumentException.class, () -> read(Map.of("UNICOMM_STORE", "nohostport")));
        assertThrows(IllegalArgumentException.class, () -> read(Map.of("UNICOMM_TIMEOUT", "soon")));
    }

    @Test
    void tokenIsNeverPrinted() {
        CommConfig c = read(Map.of("UNICOMM_TOKEN", "s3cret"));
        assertEquals("s3cret", c.token());
        assertFalse(c.toString().contains("s3cret"));
    }
}
