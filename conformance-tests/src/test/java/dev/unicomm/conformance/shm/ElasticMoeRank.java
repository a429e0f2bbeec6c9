package dev.unicomm.conformance.shm;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import dev.unicomm.moe.reference.MaskedRouting;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * A rank of {@link ElasticShmTest} (elastic mode): every iteration is a MoE dispatch/combine checked
 * against the kit's reference. The buffer is always opened with the expert mask of the communicator's
 * job ranks over the original job of 4 (semantics §7.7): all active at first, then the survivors'. The
 * victim (job rank in the first argument) SIGKILLs itself a few milliseconds into iteration
 * {@value #KILL_AT}. A survivor that gets a {@link RankFailedException} prints it, shrinks, agrees
 * with the other survivors on the first iteration not every one of them completed (one may finish an
 * iteration the others lost), and replays from there on 3 ranks with every expert where it was: the
 * dead rank's experts masked, their top-k entries dropped and counted per token (checked against the
 * reference's count and printed). Prints one line per checked iteration, so the test can see that no
 * iteration was lost unreported.
 */
public final class ElasticMoeRank {
    static final int ITERATIONS = 8;
    static final int KILL_AT = 3;
    /** The original job's size: experts stay placed over it after the shrink. */
    static final int JOB = 4;
    /** 4 per job rank; 12 stay active after one rank dies. */
    static final int EXPERTS = 16;

    private ElasticMoeRank() {}

    public static void main(String[] args) throws Exception {
        int victim = Integer.parseInt(args[0]);
        Communicator c = Unicomm.connect();
        System.out.println("PID " + ProcessHandle.current().pid());
        boolean isVictim = c.rank() == victim;
        int next = 0;
        long firstAfterShrink = -1;
        int failures = 0;
        MoeBuffer moe = c.moe(config(), ExpertMask.of(c, JOB));
        while (next < ITERATIONS) {
            try {
                if (isVictim && next == KILL_AT) killSelfSoon();
                long dropped = check(c, moe, next);
                System.out.println("CHECKED it=" + next + " size=" + c.size() + " dropped=" + dropped);
                if (failures > 0 && firstAfterShrink < 0) {
                    firstAfterShrink = System.currentTimeMillis();
                    System.out.println("FIRST-AFTER-SHRINK wall=" + firstAfterShrink);
                }
                next++;
            } catch (RankFailedException e) {
                long seen = System.currentTimeMillis();
                failures++;
                int[] jobRanks = c.jobRanks();
                System.out.println("RANKFAILED ranks="
                        + Arrays.toString(Arrays.stream(e.failedRanks())
                                .map(r -> jobRanks[r])
                                .toArray()) + " it=" + next + " wall=" + seen);
                Communicator shrunk = c.shrink();
                c = shrunk;
                System.out.println("SHRUNK size=" + c.size() + " jobRanks=" + Arrays.toString(c.jobRanks()) + " wall="
                        + System.currentTimeMillis());
                next = firstIncomplete(c, next);
                System.out.println("RESUME it=" + next);
                moe = c.moe(config(), ExpertMask.of(c, JOB));
            }
        }
        moe.close();
        c.close();
        System.out.println("DONE failures=" + failures);
        System.exit(0);
    }

    private static MoeConfig config() {
        return new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS, 96, 24, 4, false);
    }

    /**
     * One dispatch + combine + cached dispatch with the buffer's mask, checked against the reference
     * (drops per token included); returns the top-k entries this rank's tokens lost to masked experts.
     */
    private static long check(Communicator c, MoeBuffer moe, int iteration) {
        MoeScenario sc = new MoeScenario(
                "elastic-" + iteration,
                config(),
                c.size(),
                1000 + iteration,
                MoeScenario.Routing.UNIFORM,
                MoeScenario.unevenTokens(c.size(), 24, false));
        ExpertMask mask = ExpertMask.of(c, JOB);
        new MoeConformance(c, sc, mask).checkNormal(moe, false);
        return IntStream.of(new MaskedRouting(mask, EXPERTS).dropped(sc.topk(c.rank()), config().numTopk()))
                .sum();
    }

    /** The smallest {@code next} among the survivors (allreduce MIN): iterations from there are replayed. */
    private static int firstIncomplete(Communicator c, int next) {
        try (SymmetricBuffer src = c.heap().allocate(8);
                SymmetricBuffer dst = c.heap().allocate(8)) {
            MemorySegment mine = src.peer(c.rank()).orElseThrow();
            mine.set(ValueLayout.JAVA_LONG, 0, next);
            c.collectives().allreduce(c.world(), dst, src, 1, DType.INT64, ReduceOp.MIN);
            return (int) dst.peer(c.rank()).orElseThrow().get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** SIGKILL from a helper thread a few ms from now, while the main thread is inside the MoE operation. */
    private static void killSelfSoon() {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(5);
                System.out.println("KILL wall=" + System.currentTimeMillis());
                System.out.flush();
                new ProcessBuilder(
                                "kill",
                                "-9",
                                Long.toString(ProcessHandle.current().pid()))
                        .start()
                        .waitFor();
            } catch (Exception e) {
                // fall through to halt
            }
            Runtime.getRuntime().halt(137);
        });
    }
}
