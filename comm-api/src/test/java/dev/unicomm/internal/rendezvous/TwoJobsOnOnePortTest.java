package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.spi.Store;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 45, item 8: a second job of the same user started on the first job's port fails with a clear
 * message, and its ranks, turned away by the first job's store, do not harm that job.
 */
@Timeout(120)
class TwoJobsOnOnePortTest {

    private static CommConfig rank(int rank, int size, int port, String token) {
        return new CommConfig(
                null,
                rank,
                size,
                rank,
                "127.0.0.1",
                port,
                token,
                false,
                Duration.ofSeconds(20),
                CommConfig.DEFAULT_HEAP_SIZE,
                Map.of());
    }

    private static CommConfig rankOfJob(int rank, int size, int port, String token, String job) {
        return new CommConfig(
                null,
                rank,
                size,
                rank,
                "127.0.0.1",
                port,
                token,
                false,
                Duration.ofSeconds(20),
                CommConfig.DEFAULT_HEAP_SIZE,
                Map.of("unicomm.job.id", job));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void theSecondJobFailsClearlyAndTheFirstCompletes() throws Exception {
        int port = freePort();
        try (Store a0 = Rendezvous.connect(rank(0, 2, port, "job-a"))) {
            // The second job: its rank 0 cannot bind, its rank 1 knocks at the first job's store (still starting: its
            // rank 1 is not in).
            CommException bind = assertThrows(CommException.class, () -> Rendezvous.connect(rank(0, 2, port, "job-b")));
            assertTrue(
                    bind.getMessage().contains("port " + port)
                            && bind.getMessage().contains("is in use - another job?"),
                    bind.getMessage());
            assertNull(bind.getCause(), "the system's words are in the message once, not again in a cause");
            CommException knock =
                    assertThrows(CommException.class, () -> Rendezvous.connect(rank(1, 2, port, "job-b")));
            assertTrue(
                    knock.getMessage().contains("wrong token")
                            && knock.getMessage().contains("another job"),
                    knock.getMessage());
            assertFalse(knock.getMessage().contains("\n"), knock.getMessage());
            // A third job of another size, with the first job's token (one exported UNICOMM_TOKEN for both).
            CommException size = assertThrows(CommException.class, () -> Rendezvous.connect(rank(1, 4, port, "job-a")));
            assertTrue(size.getMessage().contains("claims a job of 4 ranks; this job has 2"), size.getMessage());

            Thread.sleep(300); // an abort, had there been one, has reached rank 0 by now
            a0.checkHealthy();
            try (Store a1 = Rendezvous.connect(rank(1, 2, port, "job-a"))) {
                a1.set("from-1", new byte[] {1});
                assertEquals(1, a0.get("from-1")[0]);
                var other = java.util.concurrent.CompletableFuture.runAsync(() -> a1.barrier("done"));
                a0.barrier("done");
                other.get(20, java.util.concurrent.TimeUnit.SECONDS);
                a1.checkHealthy();
            }
            a0.checkHealthy();
        }
    }

    /**
     * Two torchrun jobs that share one exported UNICOMM_TOKEN: only the job identity (TORCHELASTIC_RUN_ID)
     * tells the second job's rank 1 from the first's, which has not joined yet.
     */
    @Test
    void aStrangerWithTheSameTokenIsTurnedAwayByItsJobId() throws Exception {
        int port = freePort();
        try (Store a0 = Rendezvous.connect(rankOfJob(0, 2, port, "shared", "torchrun:job-a"))) {
            CommException knock = assertThrows(
                    CommException.class, () -> Rendezvous.connect(rankOfJob(1, 2, port, "shared", "torchrun:job-b")));
            assertTrue(
                    knock.getMessage()
                            .contains("belongs to job 'torchrun:job-b'; this store serves job 'torchrun:job-a'"),
                    knock.getMessage());
            Thread.sleep(300);
            a0.checkHealthy();
            try (Store a1 = Rendezvous.connect(rankOfJob(1, 2, port, "shared", "torchrun:job-a"))) {
                a1.set("joined", new byte[] {1});
                assertEquals(1, a0.get("joined")[0]);
            }
        }
    }
}
