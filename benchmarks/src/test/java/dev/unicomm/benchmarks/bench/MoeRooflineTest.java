package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The roofline's arithmetic: the best measured ceilings, and a floor that is the slowest of the three resources. */
class MoeRooflineTest {

    private static final List<String> LINES = List.of(
            "nvlink_ref: PE 0 of 2 on GPU 0 of 2 (132 SMs), 268435456 bytes per measurement",
            "roof,hbm_copy,0,-1,268435456,100.00,2684.4",
            "roof,hbm_copy,1,-1,268435456,110.00,2440.4",
            "roof,pair_pull,0,1,268435456,700.00,383.5", // per pair: not a floor input (operations load every link at
            // once)
            "roof,all_pull,0,-1,268435456,750.00,357.9",
            "roof,all_push,1,-1,268435456,720.00,372.8",
            "roof,all_ce,0,-1,268435456,740.00,362.8");

    @Test
    void takesTheBestAllAtOnceLinkFigureAndTheBestCopy() {
        MoeRoofline r = MoeRoofline.parse(LINES);
        assertEquals(372.8, r.linkGbps(), 1e-9);
        assertEquals(2684.4, r.hbmGbps(), 1e-9);
    }

    @Test
    void floorIsTheSlowestResource() {
        MoeRoofline r = new MoeRoofline(400, 2000, List.of());
        // 40 MB in, 20 MB out, 10 MB local: the incoming link is the limit, 100 us.
        assertEquals(100_000, r.floorNs(40_000_000, 20_000_000, 10_000_000), 1e-6);
        assertEquals(100_000, r.floorNs(20_000_000, 40_000_000, 10_000_000), 1e-6);
        // A large local share on a fast copy can still dominate.
        assertEquals(150_000, r.floorNs(4_000_000, 4_000_000, 300_000_000), 1e-6);
    }

    /** The bench's per-rank bytes: rows to and from other ranks are link traffic, its own rows stay local; a combine reverses them. */
    @Test
    void trafficSeparatesOwnRowsAndCombineReversesDirections() {
        MoeBenchWorker.Traffic t = MoeBenchWorker.Traffic.of(1, new int[] {3, 5, 7}, new int[] {2, 4, 6}, 10);
        assertEquals(new MoeBenchWorker.Traffic(100, 80, 50), t);
        assertEquals(new MoeBenchWorker.Traffic(80, 100, 50), t.reversed());
    }

    @Test
    void missingFiguresAreNamed() {
        IllegalStateException noCopy = assertThrows(
                IllegalStateException.class, () -> MoeRoofline.parse(List.of("roof,all_pull,0,-1,1,1,1.0")));
        assertTrue(noCopy.getMessage().contains("no hbm_copy"), noCopy.getMessage());
        MoeRoofline onePe = MoeRoofline.parse(List.of("roof,hbm_copy,0,-1,1,1,100.0"));
        assertEquals(10.0, onePe.floorNs(0, 0, 1000), 1e-9);
        assertTrue(assertThrows(IllegalStateException.class, () -> onePe.floorNs(1, 0, 0))
                .getMessage()
                .contains("no link bandwidth"));
    }
}
