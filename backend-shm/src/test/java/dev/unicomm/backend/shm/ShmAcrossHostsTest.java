package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue #46 item 4: a job of 2 hosts x 2 ranks on shm fails on every rank within seconds, in one line that
 * names the hosts and what could span them, before any heap file is written on either host.
 */
@MultiHost(hosts = 2, ttlSeconds = 300)
class ShmAcrossHostsTest {
    private static final String HOSTS = "2 hosts: node0 (ranks 0-1), node1 (ranks 2-3)";

    @Test
    void namingShmForTwoHostsFailsEveryRankInOneLine(TestBed bed) throws Exception {
        List<String> lines = job(bed, "shm");
        for (String line : lines) {
            assertTrue(
                    line.startsWith(
                            "FAILED CommException: backend 'shm' cannot span hosts, but this job runs on " + HOSTS),
                    line);
            assertTrue(!line.contains("[cause"), "the reason is the error itself, not a cause: " + line);
        }
        assertNoHeapFiles(bed);
    }

    @Test
    void withNoBackendThatSpansHostsEveryRankSaysWhichArtifactsWould(TestBed bed) throws Exception {
        for (String line : job(bed, null))
            assertTrue(
                    line.startsWith("FAILED CommException: this job runs on " + HOSTS
                                    + ", but no backend on the class path can span hosts")
                            && line.contains("backend-ucx"),
                    line);
        assertNoHeapFiles(bed);
    }

    /** Runs ranks 0-1 on node0 and 2-3 on node1 (store on node0) and returns each rank's one line. */
    private static List<String> job(TestBed bed, String backend) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String token = UUID.randomUUID().toString();
        int port = 29000 + (int) (ProcessHandle.current().pid() % 500);
        List<Process> ranks = new ArrayList<>();
        long start = System.nanoTime();
        for (int r = 0; r < 4; r++) {
            List<String> cmd = new ArrayList<>(List.of(
                    "env",
                    "UNICOMM_RANK=" + r,
                    "UNICOMM_WORLD_SIZE=4",
                    "UNICOMM_LOCAL_RANK=" + r % 2,
                    "UNICOMM_STORE=" + bed.address(0) + ":" + port,
                    "UNICOMM_TOKEN=" + token,
                    "UNICOMM_TIMEOUT=30s"));
            if (backend != null) cmd.add("UNICOMM_BACKEND=" + backend);
            cmd.addAll(List.of(
                    java,
                    "-Xmx64m",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData", // the bed's hosts share /tmp (hsperfdata)
                    "-cp",
                    System.getProperty("java.class.path"),
                    ConnectOnce.class.getName()));
            ranks.add(bed.command(r / 2, cmd).redirectErrorStream(true).start());
        }
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            Process p = ranks.get(r);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "rank " + r + " must end within the timeout");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(3, p.exitValue(), "rank " + r + ": " + out);
            assertEquals(1, out.lines().count(), "rank " + r + " prints one line: " + out);
            lines.add(out);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(
                took.compareTo(Duration.ofSeconds(25)) < 0,
                "every rank fails within seconds, not at the timeout: " + took);
        return lines;
    }

    private static void assertNoHeapFiles(TestBed bed) {
        for (int h = 0; h < 2; h++) {
            TestBed.Ran ls = bed.run(h, Duration.ofSeconds(30), "ls", "-A", "/dev/shm");
            assertEquals("", ls.output().strip(), "nothing written into node" + h + "'s /dev/shm");
        }
    }
}
