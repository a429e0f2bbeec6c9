package dev.unicomm.backend.ucx.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Faults across two bed hosts (rank 0 on node0 with the store, rank 1 on node1; UCX over TCP on eth0,
 * communicator timeout 10 s): node1's link taken down, and rank 1 stopped with SIGSTOP. Rank 0 must fail
 * with {@code CommAbortedException} or {@code CommTimeoutException} naming rank 1 within the timeout,
 * close, and leave nothing new in /dev/shm. The test prints how long each fault took to be reported.
 */
@MultiHost(hosts = 2, ttlSeconds = 600)
class UcxHostFaultsTest {
    private static final long TIMEOUT_MS = 10_000;
    private static final Pattern FAILED =
            Pattern.compile("FAILED (\\w+) failedRank=(-?\\d+) at=(\\d+) ops=(\\d+): (.*)");

    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    @Test
    void aHostWhoseLinkGoesDownIsReportedByTheSurvivor(TestBed bed) throws Exception {
        survive(
                bed,
                "link down",
                victim -> {
                    TestBed.Ran r = bed.run(1, Duration.ofSeconds(20), "ip", "link", "set", "eth0", "down");
                    assertEquals(0, r.exitCode(), r.output());
                },
                () -> bed.run(1, Duration.ofSeconds(20), "ip", "link", "set", "eth0", "up"));
    }

    @Test
    void aPeerThatStopsAnsweringIsReportedByTheSurvivor(TestBed bed) throws Exception {
        survive(bed, "SIGSTOP", victim -> victim.signal("STOP"), () -> {});
    }

    private interface Fault {
        void inject(BedProcess victim) throws Exception;
    }

    private static void survive(TestBed bed, String what, Fault fault, Runnable repair) throws Exception {
        Set<String> shmBefore = shm();
        List<Map<String, String>> env = BedProcess.job(bed, 2, TIMEOUT_MS / 1000 + "s");
        BedProcess survivor = BedProcess.start(bed, 0, HostsSurvivor.class.getName(), env.get(0));
        BedProcess victim = BedProcess.start(bed, 1, HostsSurvivor.class.getName(), env.get(1));
        try {
            assertNotNull(survivor.await("READY", 60), "rank 0 never got ready:\n" + survivor.output());
            assertNotNull(victim.await("READY", 60), "rank 1 never got ready:\n" + victim.output());
            Thread.sleep(300); // rank 0 is in its RMA loop
            String load = Files.readString(Path.of("/proc/loadavg")).strip();
            long faultAt = System.currentTimeMillis();
            fault.inject(victim);
            String line = survivor.await("FAILED", TIMEOUT_MS / 1000 * 3 + 30);
            assertNotNull(line, "rank 0 did not fail after " + what + ":\n" + survivor.output());
            Matcher m = FAILED.matcher(line);
            assertTrue(m.find(), line);
            long reportedMs = Long.parseLong(m.group(3)) - faultAt;
            boolean namesRank1 = m.group(2).equals("1")
                    || m.group(5).contains("PE 1")
                    || m.group(5).contains("rank 1");
            assertTrue(namesRank1, "the failure does not name rank 1: " + line);
            assertTrue(
                    reportedMs <= TIMEOUT_MS + 5_000,
                    what + " reported only after " + reportedMs + " ms (timeout " + TIMEOUT_MS + " ms): " + line);
            assertTrue(
                    survivor.process.waitFor(TIMEOUT_MS * 3 + 30_000, TimeUnit.MILLISECONDS),
                    "rank 0 hung in close:\n" + survivor.output());
            String closed = survivor.await("CLOSED", 5);
            assertNotNull(closed, "rank 0 did not close:\n" + survivor.output());
            System.out.printf(
                    "FAULT %s: rank 0 reported %s after %d ms (%s ops before); %s; loadavg at the fault %s; %s%n",
                    what, m.group(1), reportedMs, m.group(4), closed, load, line);
        } finally {
            victim.kill();
            survivor.kill();
            repair.run();
        }
        Set<String> leaked = shm().stream().filter(n -> !shmBefore.contains(n)).collect(Collectors.toSet());
        assertTrue(
                leaked.stream().noneMatch(n -> n.contains("unicomm") || n.contains("ucx")),
                "left in /dev/shm: " + leaked);
    }

    private static Set<String> shm() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }
}
