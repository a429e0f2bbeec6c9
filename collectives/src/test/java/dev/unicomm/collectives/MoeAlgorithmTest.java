package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.HostTopology;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@code unicomm.moe.algorithm}: the topology's choice under auto, the setting's otherwise, one line for a bad value. */
@ResourceLock("system-properties")
class MoeAlgorithmTest {
    @AfterEach
    void clear() {
        System.clearProperty(MoeAlgorithm.PROPERTY);
    }

    @Test
    void autoPicksTwoLevelsOnlyWhereAHostHasSeveralRanksAndThereAreSeveralHosts() {
        assertEquals(
                MoeAlgorithm.HIERARCHICAL,
                MoeAlgorithm.forTopology(new HostTopology(0, new int[] {0, 0, 1, 1}, List.of("a", "b"))));
        assertEquals(
                MoeAlgorithm.HIERARCHICAL,
                MoeAlgorithm.forTopology(new HostTopology(0, new int[] {0, 1, 1}, List.of("a", "b"))));
        assertEquals(MoeAlgorithm.FLAT, MoeAlgorithm.forTopology(HostTopology.singleHost(0, 4, "a")));
        assertEquals(
                MoeAlgorithm.FLAT, MoeAlgorithm.forTopology(new HostTopology(1, new int[] {0, 1}, List.of("a", "b"))));
    }

    @Test
    void theSettingOverridesAndABadValueIsOneClearLine() {
        try (ThreadWorld w = ThreadWorld.create(2, true, 1 << 20)) {
            w.job().hosts(0, 1).runOk(comm -> {
                if (comm.rank() == 0) {
                    assertEquals(MoeAlgorithm.FLAT, MoeAlgorithm.chosen(comm)); // auto: one rank per host
                    System.setProperty(MoeAlgorithm.PROPERTY, " Hierarchical ");
                    assertEquals(MoeAlgorithm.HIERARCHICAL, MoeAlgorithm.chosen(comm));
                    System.setProperty(MoeAlgorithm.PROPERTY, "tree");
                    IllegalArgumentException e =
                            assertThrows(IllegalArgumentException.class, () -> MoeAlgorithm.chosen(comm));
                    assertTrue(
                            e.getMessage().contains("'tree'") && e.getMessage().contains("flat, hierarchical or auto"),
                            e.getMessage());
                    System.clearProperty(MoeAlgorithm.PROPERTY);
                }
                comm.barrier();
            });
        }
        try (ThreadWorld w = ThreadWorld.create(2, true, 1 << 20)) {
            System.setProperty(MoeAlgorithm.PROPERTY, "hierarchical");
            w.job()
                    .runOk(comm ->
                            assertEquals(MoeAlgorithm.FLAT, MoeAlgorithm.chosen(comm))); // one host: nothing crosses
        }
    }
}
