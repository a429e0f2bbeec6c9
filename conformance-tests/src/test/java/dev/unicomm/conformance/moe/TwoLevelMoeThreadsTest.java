package dev.unicomm.conformance.moe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The portable MoE's two-level normal mode (issue 48) against the kit's reference: shm PEs as threads
 * with a simulated topology (no namespaces), so every cross-host byte goes by RMA and every in-host byte
 * by direct stores (or RMA with {@code unicomm.moe.direct=false}).
 */
@ResourceLock("system-properties")
class TwoLevelMoeThreadsTest {
    private static final String ALGORITHM = "unicomm.moe.algorithm"; // collectives' ALGORITHM (runtime dependency only)

    @AfterEach
    void clear() {
        System.clearProperty(ALGORITHM);
        System.clearProperty("unicomm.moe.direct");
    }

    @Test
    void twoHostsOfTwoRanksMatchTheReference() {
        check(new int[] {0, 0, 1, 1}, "auto");
    }

    @Test
    void twoHostsOfTwoRanksMatchTheReferenceByRmaOnly() {
        System.setProperty(
                "unicomm.moe.direct", "false"); // in-host forwarding by RMA too (backends without direct access)
        check(new int[] {0, 0, 1, 1}, "auto");
    }

    @Test
    void unevenHostsMatchTheReference() {
        check(new int[] {0, 0, 0, 1, 1}, "hierarchical"); // proxies serve two sources of the bigger host
    }

    @Test
    void oneRankPerHostForcedTwoLevelMatchesTheReference() {
        check(new int[] {0, 1, 2}, "hierarchical"); // auto would pick flat here
    }

    private static void check(int[] hosts, String algorithm) {
        System.setProperty(ALGORITHM, algorithm);
        int ranks = hosts.length;
        MoeConfig bf16 = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * ranks, 96, 24, 4, false);
        MoeConfig fp8 = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * ranks, 256, 24, 4, true);
        PortableMoeThreadsTest.shmRanks(ranks).hosts(hosts).runOk(comm -> {
            long seed = 101;
            for (Routing routing : Routing.values()) {
                try (MoeBuffer moe = comm.moe(bf16)) {
                    // The two-level algorithm's staging area is what tells it apart from the flat one here.
                    assertTrue(
                            moe.footprintBytes() > bf16.sizeHint(ranks) + bf16.outputBytes(),
                            () -> "flat MoE on " + comm.topology());
                    new MoeConformance(comm, PortableMoeThreadsTest.scenario(bf16, ranks, routing, seed++))
                            .checkNormal(moe, false);
                }
            }
            try (MoeBuffer moe = comm.moe(fp8)) {
                new MoeConformance(comm, PortableMoeThreadsTest.scenario(fp8, ranks, Routing.UNUSED_SLOTS, 7))
                        .checkNormal(moe, true);
                new MoeConformance(comm, PortableMoeThreadsTest.scenario(fp8, ranks, Routing.UNIFORM, 8))
                        .checkNormal(moe, false);
            }
        });
    }
}
