package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** An expert mask is validated when made, copies its ranks, and places experts over the original job. */
class ExpertMaskTest {

    static void expect(String fragment, org.junit.jupiter.api.function.Executable e) {
        Throwable t = assertThrows(IllegalArgumentException.class, e);
        assertTrue(
                t.getMessage().contains(fragment),
                () -> "message '" + t.getMessage() + "' should contain '" + fragment + "'");
    }

    @Test
    void badMasksAreRejectedWithTheReason() {
        expect("jobSize must be >= 1, got 0", () -> new ExpertMask(0, new int[] {0}));
        expect("at least one live rank", () -> new ExpertMask(4, new int[0]));
        expect("at least one live rank", () -> new ExpertMask(4, null));
        expect("activeJobRanks[1] = 4 is not a rank of a job of 4", () -> new ExpertMask(4, new int[] {0, 4}));
        expect("activeJobRanks[0] = -1", () -> new ExpertMask(4, new int[] {-1, 2}));
        expect("strictly increasing", () -> new ExpertMask(4, new int[] {1, 1}));
        expect("strictly increasing", () -> new ExpertMask(4, new int[] {3, 1}));
        expect("jobSize must be >= 1", () -> ExpertMask.all(0));
    }

    @Test
    void ranksAreCopiedInAndOut() {
        int[] ranks = {0, 1, 3};
        ExpertMask m = new ExpertMask(4, ranks);
        ranks[2] = 2;
        assertArrayEquals(new int[] {0, 1, 3}, m.activeJobRanks());
        m.activeJobRanks()[0] = 9;
        assertArrayEquals(new int[] {0, 1, 3}, m.activeJobRanks());
        assertEquals(new ExpertMask(4, new int[] {0, 1, 3}), m);
        assertEquals(new ExpertMask(4, new int[] {0, 1, 3}).hashCode(), m.hashCode());
        assertFalse(m.equals(new ExpertMask(5, new int[] {0, 1, 3})));
    }

    @Test
    void expertsLiveWhereTheOriginalJobPlacedThem() {
        ExpertMask m = new ExpertMask(4, new int[] {0, 1, 3});
        MoeConfig cfg = MoeConfig.normal(16, 128, 8); // 4 experts per job rank
        assertTrue(m.rankActive(3));
        assertFalse(m.rankActive(2));
        assertEquals(3, m.activeCount());
        assertFalse(m.allActive());
        assertTrue(ExpertMask.all(4).allActive());
        for (int e = 0; e < 16; e++) assertEquals(e / 4 != 2, m.expertActive(cfg, e), "expert " + e);
        expect("expert 16 is not in [0, 16)", () -> m.expertActive(cfg, 16));
        expect("job rank 4 is not in [0, 4)", () -> m.rankActive(4));
        expect("must be divisible", () -> m.expertActive(MoeConfig.normal(18, 128, 8), 0));
    }

    @Test
    void ofTakesTheCommunicatorsJobRanks() {
        Communicator shrunk = (Communicator) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Communicator.class},
                (p, method, args) -> switch (method.getName()) {
                    case "jobRanks" -> new int[] {0, 1, 3};
                    case "size" -> 3;
                    default -> {
                        if (!method.isDefault()) throw new UnsupportedOperationException(method.getName());
                        yield java.lang.reflect.InvocationHandler.invokeDefault(p, method, args);
                    }
                });
        assertEquals(new ExpertMask(4, new int[] {0, 1, 3}), ExpertMask.of(shrunk, 4));
        expect("activeJobRanks[2] = 3 is not a rank of a job of 3", () -> ExpertMask.of(shrunk, 3));
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class,
                () -> shrunk.moe(MoeConfig.normal(16, 128, 8), ExpertMask.of(shrunk, 4)));
        assertTrue(e.getMessage().contains("moe(config, mask)"), e.getMessage());
    }
}
