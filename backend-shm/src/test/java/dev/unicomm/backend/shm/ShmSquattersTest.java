package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.testsupport.MemoryStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue #45 item 6: another local user who watches a shared {@code /dev/shm} (mode 1777) and takes
 * every name the job might use next (every name pattern of the old scheme, entries inside any folder
 * it sees) cannot stop the job from starting. Ranks 1..3 start only after the squatter saw rank 0's
 * first entry, as when their JVMs start late on a loaded host.
 */
class ShmSquattersTest {
    private static final int RANKS = 4;

    /** Takes, as another user, for 20 s at most, every name the old scheme derives from a name it sees. */
    private static final String SQUATTER = """
            D=$1; end=$((SECONDS+20))
            for i in 0 1 2; do mkdir -m 777 "$D/unicomm-job-0000000000000000000000000000000$i"; done
            ln -s /etc "$D/unicomm-job-ffffffffffffffffffffffffffffffff"
            while (( SECONDS < end )); do
              for f in "$D"/* "$D"/.unicomm*; do
                n=${f##*/}
                if [[ $n =~ unicomm-shm-([0-9a-f]+)-r[0-9]+-p([0-9]+) ]]; then
                  for r in 0 1 2 3; do
                    : > "$D/unicomm-shm-${BASH_REMATCH[1]}-r$r-p${BASH_REMATCH[2]}"
                    : > "$D/.unicomm-shm-${BASH_REMATCH[1]}-r$r-p${BASH_REMATCH[2]}.new"
                  done
                fi
                if [[ -d $f && ! -L $f ]]; then for r in 0 1 2 3; do : > "$f/squat$r"; done; fi
              done 2>/dev/null
            done
            """;

    @Test
    void aJobStartsWhileAnotherUserTakesTheNamesItWouldUse() throws Exception {
        Assumptions.assumeTrue(
                RootOnly.root(), "needs root to run a second user (setpriv --reuid=nobody); skipped as a normal user");
        Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "unicomm-squat-test-");
        Process squatter = null;
        ExecutorService pool = Executors.newFixedThreadPool(RANKS);
        try {
            assertEquals(0, RootOnly.run(List.of("chmod", "1777", shm.toString())));
            squatter = new ProcessBuilder(
                            "setpriv",
                            "--reuid=nobody",
                            "--regid=nogroup",
                            "--clear-groups",
                            "bash",
                            "-c",
                            SQUATTER,
                            "squatter",
                            shm.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            waitFor(
                    () -> Files.exists(
                            shm.resolve("unicomm-job-ffffffffffffffffffffffffffffffff"), LinkOption.NOFOLLOW_LINKS),
                    "the squatter to start");
            MemoryStore store = new MemoryStore(RANKS, Duration.ofSeconds(10));
            List<Future<String>> ranks = new ArrayList<>();
            ranks.add(pool.submit(() -> startAndBarrier(store, 0, shm)));
            waitFor(() -> !ownEntries(shm).isEmpty(), "rank 0's first entry in " + shm);
            Thread.sleep(500); // the squatter polls continuously: it has seen rank 0's entry many times over
            for (int r = 1; r < RANKS; r++) {
                int rank = r;
                ranks.add(pool.submit(() -> startAndBarrier(store, rank, shm)));
            }
            List<String> expected = new ArrayList<>(), got = new ArrayList<>();
            for (int r = 0; r < RANKS; r++) {
                expected.add("rank " + r + " started");
                got.add(ranks.get(r).get(60, TimeUnit.SECONDS));
            }
            assertEquals(expected, got);
            assertEquals(List.of(), ownEntries(shm), "the job left no entry of its own");
        } finally {
            pool.shutdownNow();
            if (squatter != null) squatter.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            RootOnly.run(List.of("rm", "-rf", shm.toString()));
        }
    }

    private static String startAndBarrier(MemoryStore store, int rank, Path shm) {
        CommConfig cfg = new CommConfig(
                "shm", rank, RANKS, rank, "in-process", 1, null, false, Duration.ofSeconds(10), 1 << 20, Map.of());
        try (ShmCommunicator c = ShmCommunicator.open(new BackendContext(cfg, store.view(rank)), shm)) {
            c.barrier();
            return "rank " + rank + " started";
        } catch (RuntimeException e) {
            return "rank " + rank + " failed: " + e;
        }
    }

    /** Entries (at any depth) of this process's user, not the squatter's. */
    private static List<Path> ownEntries(Path shm) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return ownEntriesOnce(shm);
            } catch (java.io.UncheckedIOException e) {
                if (attempt == 20) throw e.getCause(); // an entry vanished under the walk: look again
            }
        }
    }

    private static List<Path> ownEntriesOnce(Path shm) throws IOException {
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        try (Stream<Path> all = Files.walk(shm)) {
            return all.filter(p -> !p.equals(shm))
                    .filter(p -> {
                        try {
                            return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) == me;
                        } catch (IOException e) {
                            return false; // gone meanwhile
                        }
                    })
                    .toList();
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitFor(Condition c, String what) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.holds()) {
            if (System.nanoTime() > end) throw new AssertionError("gave up waiting 10 s for " + what);
            Thread.sleep(1);
        }
    }
}
