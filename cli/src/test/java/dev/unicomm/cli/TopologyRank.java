package dev.unicomm.cli;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Memory;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A rank that connects, sums its rank over the world and over its node team, and prints one line:
 * {@code RANK r/n local l/L host h/H sum s nodesum t}; or {@code FAILED message} with exit code 3.
 */
public final class TopologyRank {
    public static void main(String[] args) {
        try (Communicator c = Unicomm.connect()) {
            var t = c.topology();
            long world = sum(c, c.world(), c.rank());
            var node = c.nodeTeam();
            long nodeSum = sum(c, node, c.rank());
            System.out.println("RANK " + c.rank() + "/" + c.size() + " local " + t.localRank() + "/" + t.localSize()
                    + " host " + t.host() + "/" + t.hostCount() + " sum " + world + " nodesum " + nodeSum
                    + " env-local " + System.getenv("UNICOMM_LOCAL_RANK"));
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage());
            System.exit(3);
        }
    }

    private static long sum(Communicator c, dev.unicomm.api.Team team, long value) {
        try (SymmetricBuffer src = c.heap().allocate(8);
                SymmetricBuffer dst = c.heap().allocate(8)) {
            // Through RMA to itself, which every backend has (direct access is optional).
            MemorySegment local = Arena.ofAuto().allocate(8);
            local.set(ValueLayout.JAVA_LONG, 0, value);
            c.rma().put(src, 0, Memory.of(local), 0, 8, c.rank());
            c.rma().quiet();
            c.collectives().allreduce(team, dst, src, 1, DType.INT64, ReduceOp.SUM);
            c.rma().get(Memory.of(local), 0, dst, 0, 8, c.rank());
            return local.get(ValueLayout.JAVA_LONG, 0);
        }
    }
}
