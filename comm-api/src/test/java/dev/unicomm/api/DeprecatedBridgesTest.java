package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The byte-counted collectives and {@code Endpoints.load} of 0.1.0 (removed on 2026-12-01 without
 * notice, restored deprecated): code written against them compiles, and each call is the
 * element-counted call with UINT8 elements.
 */
@SuppressWarnings("removal")
class DeprecatedBridgesTest {

    /** Records the element-counted calls the bridges make. */
    private static final class Recording implements Collectives {
        final List<String> calls = new ArrayList<>();

        @Override
        public void broadcast(Team t, SymmetricBuffer d, SymmetricBuffer s, long count, DType dtype, int root) {
            calls.add("broadcast " + count + " " + dtype + " root " + root);
        }

        @Override
        public void allgather(Team t, SymmetricBuffer d, SymmetricBuffer s, long countPerPe, DType dtype) {
            calls.add("allgather " + countPerPe + " " + dtype);
        }

        @Override
        public void allreduce(Team t, SymmetricBuffer d, SymmetricBuffer s, long count, DType dtype, ReduceOp op) {
            calls.add("allreduce");
        }

        @Override
        public void reduceScatter(
                Team t, SymmetricBuffer d, SymmetricBuffer s, long countPerPe, DType dtype, ReduceOp op) {
            calls.add("reduceScatter");
        }

        @Override
        public void alltoall(Team t, SymmetricBuffer d, SymmetricBuffer s, long countPerPe, DType dtype) {
            calls.add("alltoall " + countPerPe + " " + dtype);
        }

        @Override
        public void alltoallv(
                Team t, SymmetricBuffer d, long[] rc, long[] ro, SymmetricBuffer s, long[] sc, long[] so, DType dtype) {
            calls.add("alltoallv " + Arrays.toString(rc) + Arrays.toString(ro) + Arrays.toString(sc)
                    + Arrays.toString(so) + " " + dtype);
        }
    }

    @Test
    void byteCountedCollectivesMoveTheSameBytesAsUint8Elements() {
        Recording c = new Recording();
        c.broadcast(null, null, null, 4096, 3);
        c.allgather(null, null, null, 512);
        c.alltoall(null, null, null, 64);
        c.alltoallv(null, null, new long[] {1, 2}, new long[] {0, 1}, null, new long[] {3, 4}, new long[] {0, 3});
        assertEquals(
                List.of(
                        "broadcast 4096 UINT8 root 3",
                        "allgather 512 UINT8",
                        "alltoall 64 UINT8",
                        "alltoallv [1, 2][0, 1][3, 4][0, 3] UINT8"),
                c.calls);
    }

    @Test
    void collectivesBarrierIsTheTeamsBarrier() {
        int[] barriers = {0};
        Team team = (Team) java.lang.reflect.Proxy.newProxyInstance(
                Team.class.getClassLoader(), new Class<?>[] {Team.class}, (proxy, m, args) -> {
                    if (m.getName().equals("barrier") && m.getParameterCount() == 0) barriers[0]++;
                    return null;
                });
        new Recording().barrier(team);
        assertEquals(1, barriers[0]);
    }

    @Test
    void endpointsLoadIsTheFrontDoorsEndpoints() {
        String viaFrontDoor = assertThrows(IllegalArgumentException.class, () -> Unicomm.endpoints("no-such-backend"))
                .getMessage();
        String viaLoad = assertThrows(IllegalArgumentException.class, () -> Endpoints.load("no-such-backend"))
                .getMessage();
        assertEquals(viaFrontDoor, viaLoad);
    }
}
