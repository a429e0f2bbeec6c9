package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** One PE of a multi-process test; prints {@code RESULT <text>} lines the test checks. */
public final class ShmWorker {
    private ShmWorker() {}

    public static void main(String[] args) throws Exception {
        try (Communicator comm = Unicomm.connect()) {
            switch (args[0]) {
                case "ring" -> ring(comm);
                case "atomics" -> atomics(comm);
                case "teams" -> teams(comm);
                case "mismatch" -> mismatch(comm);
                case "crash" -> crash(comm);
                case "slow-barriers" -> slowBarriers(comm);
                case "detect" -> detect(comm);
                default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
            }
        }
    }

    private static void ring(Communicator comm) {
        int n = comm.size(), me = comm.rank();
        try (SymmetricBuffer buf = comm.heap().allocate(1 << 20)) {
            byte[] mine = new byte[1 << 20];
            java.util.Arrays.fill(mine, (byte) (me + 1));
            comm.rma().put(buf, 0, MemorySegment.ofArray(mine), (me + 1) % n);
            comm.barrier();
            byte first = buf.segment().get(ValueLayout.JAVA_BYTE, 0),
                    last = buf.segment().get(ValueLayout.JAVA_BYTE, (1 << 20) - 1);
            byte[] fromNext = new byte[16];
            comm.rma().get(MemorySegment.ofArray(fromNext), buf, 100, (me + 1) % n);
            System.out.println("RESULT rank " + me + " got " + first + "/" + last + " next holds " + fromNext[0]);
            comm.barrier();
        }
    }

    private static void atomics(Communicator comm) {
        try (SymmetricBuffer ctr = comm.heap().allocate(16)) {
            for (int i = 0; i < 10_000; i++) comm.rma().atomicFetchAdd(ctr, 0, 1, 0);
            comm.barrier();
            System.out.println(
                    "RESULT rank " + comm.rank() + " sum " + comm.rma().atomicFetch(ctr, 0, 0));
            comm.barrier();
        }
    }

    private static void teams(Communicator comm) {
        Team.Split2d grid = comm.world().split2d(2);
        try (Team x = grid.x();
                Team y = grid.y();
                SymmetricBuffer buf = comm.heap().allocate(8)) {
            // Sum of world ranks over my row, via atomics on the row's team rank 0.
            comm.rma().atomicAdd(buf, 0, comm.rank(), x.worldRank(0));
            x.barrier();
            long rowSum = comm.rma().atomicFetch(buf, 0, x.worldRank(0));
            y.barrier();
            System.out.println("RESULT rank " + comm.rank() + " x " + x.rank() + "/" + x.size() + " y " + y.rank() + "/"
                    + y.size() + " rowSum " + rowSum);
            comm.barrier();
        }
    }

    private static void mismatch(Communicator comm) {
        try {
            comm.heap().allocate(comm.rank() == 1 ? 4096 : 1024).close();
            System.out.println("RESULT rank " + comm.rank() + " no error");
        } catch (IllegalArgumentException e) {
            System.out.println("RESULT rank " + comm.rank() + " " + e.getMessage());
        }
    }

    /** Barriers where the others wait ~150 ms each time, so their watchdogs look at the peers' liveness many times. */
    private static void slowBarriers(Communicator comm) throws InterruptedException {
        for (int i = 0; i < 16; i++) {
            if (i % comm.size() == comm.rank()) Thread.sleep(150);
            comm.barrier();
        }
        System.out.println("RESULT rank " + comm.rank() + " passed 16 slow barriers");
    }

    private static void crash(Communicator comm) {
        comm.barrier();
        if (comm.rank() == 1) Runtime.getRuntime().halt(42); // no close, no goodbye: a crashed PE
        try {
            comm.barrier();
            System.out.println("RESULT rank " + comm.rank() + " passed the barrier");
        } catch (CommAbortedException e) {
            System.out.println("RESULT rank " + comm.rank() + " aborted: failed rank " + e.failedRank());
            Runtime.getRuntime().halt(0);
        }
    }

    /**
     * Rank 1 is SIGKILLed while both loop on barriers: a bash child notes the wall clock (a builtin, no
     * fork) and sends {@code kill -9} to it at once; rank 0 prints when its barrier failed. For {@link DetectionTimeMain}.
     */
    private static void detect(Communicator comm) throws Exception {
        comm.barrier();
        if (comm.rank() == 1) {
            new ProcessBuilder("bash", "-c", "sleep 0.3; t=$EPOCHREALTIME; kill -9 $PPID; echo \"RESULT KILL ${t/./}\"")
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        }
        long end = System.nanoTime() + 20_000_000_000L;
        try {
            while (System.nanoTime() < end) comm.barrier();
            System.out.println("RESULT NOTICED never");
        } catch (CommAbortedException e) {
            System.out.println("RESULT NOTICED " + micros());
        }
        Runtime.getRuntime().halt(0);
    }

    private static long micros() {
        java.time.Instant t = java.time.Instant.now();
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
    }
}
