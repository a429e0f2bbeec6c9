package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #46, faults: a host's link goes down in the middle of a 2-host x 2-rank job started by
 * {@code unicomm run --nnodes 2}. The ranks of the other host fail within the wait timeout naming ranks of the
 * lost host, both launchers exit non-zero, and neither host keeps a rank process or a file in {@code /dev/shm}.
 */
@MultiHost(hosts = 2, ttlSeconds = 400)
@Timeout(400)
class RunLinkDownTest {
    static final String TOKEN = "secret-of-the-job-whose-link-goes-down-0123456789";
    static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void aHostWhoseLinkGoesDownIsNamedByTheOtherHostAndNothingIsLeft(TestBed bed) throws Exception {
        boolean ucx = BackendRegistry.load().providers().stream()
                .anyMatch(p -> p.name().equals("ucx") && p.availability().available());
        assumeTrue(ucx, "backend ucx is not available here (apt-get install libucx0)");
        List<Process> launchers = new ArrayList<>();
        List<Output> outs = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            List<String> cmd = MultiNodeArgs.concat(
                    MultiNodeArgs.javaRun("UNICOMM_TOKEN=" + TOKEN, "UCX_TLS=tcp", "UCX_NET_DEVICES=eth0"),
                    MultiNodeArgs.node(2, node, 2, bed.address(0), 29518),
                    List.of(
                            "--wait-timeout",
                            WAIT.toSeconds() + "s",
                            "--timeout",
                            "200s",
                            "-J-XX:-UsePerfData",
                            "-J-XX:TieredStopAtLevel=1",
                            "--",
                            LinkDownRank.class.getName()));
            Process p = bed.command(node, cmd).redirectErrorStream(true).start();
            launchers.add(p);
            outs.add(Output.drain(p.getInputStream()));
        }
        long upBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!(outs.get(0).text().contains("UP 1") && outs.get(1).text().contains("UP 3"))
                && System.nanoTime() < upBy) {
            assertTrue(
                    launchers.stream().allMatch(Process::isAlive),
                    () -> "a launcher ended before the job was up:\n" + outs);
            Thread.sleep(100);
        }
        assertTrue(
                outs.get(0).text().contains("UP 0") && outs.get(1).text().contains("UP 2"),
                () -> "the job did not come up:\n" + outs);
        Thread.sleep(500); // a few rounds of the loop across the link

        TestBed.Ran down = bed.run(1, Duration.ofSeconds(20), "ip", "link", "set", "eth0", "down");
        assertEquals(0, down.exitCode(), down.output());
        long downAt = System.nanoTime();

        assertTrue(
                launchers.get(0).waitFor(3 * WAIT.toSeconds() + 30, TimeUnit.SECONDS),
                () -> "node0's launcher still runs:\n" + outs.get(0));
        double node0Seconds = (System.nanoTime() - downAt) / 1e9;
        assertTrue(
                launchers.get(1).waitFor(3 * WAIT.toSeconds() + 30, TimeUnit.SECONDS),
                () -> "node1's launcher still runs:\n" + outs.get(1));
        String out0 = outs.get(0).text();
        assertNotEquals(0, launchers.get(0).exitValue(), out0);
        assertNotEquals(0, launchers.get(1).exitValue(), outs.get(1).text());
        // node0's ranks say which ranks they lost (ranks 2 and 3 live on node1), in one line each, no stack trace.
        for (int local = 0; local < 2; local++) {
            String prefix = "[" + local + "] FAILED ";
            String line =
                    out0.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
            assertTrue(
                    line.matches(".*ranks? [23]\\b.*"), "rank " + local + " of node0 names no rank of node1:\n" + out0);
        }
        assertFalse(out0.contains("\tat "), "a stack trace reached the user:\n" + out0);
        assertTrue(
                node0Seconds < 2 * WAIT.toSeconds() + 15,
                "node0 took " + node0Seconds + " s after the link went down:\n" + out0);
        System.out.println(out0);
        System.out.printf(
                "link down -> node0's launcher exited after %.1f s (wait timeout %d s)%n",
                node0Seconds, WAIT.toSeconds());

        for (int node = 0; node < 2; node++) {
            TestBed.Ran shm = bed.run(
                    node, Duration.ofSeconds(20), "sh", "-c", "ls -A /dev/shm; ps -eo comm | grep -c java || true");
            assertEquals(
                    "0",
                    shm.output().strip(),
                    "node" + node + " kept files in /dev/shm or java processes:\n" + shm.output());
        }
    }

    /** Everything a process prints, read on a thread of its own so that a full pipe never stops it. */
    record Output(StringBuffer buf) {
        static Output drain(InputStream in) {
            Output o = new Output(new StringBuffer());
            Thread.ofPlatform().daemon().start(() -> {
                try (in) {
                    byte[] b = new byte[4096];
                    for (int n; (n = in.read(b)) > 0; ) o.buf.append(new String(b, 0, n, StandardCharsets.UTF_8));
                } catch (IOException ignored) {
                    /* the process ended */
                }
            });
            return o;
        }

        String text() {
            return buf.toString();
        }

        @Override
        public String toString() {
            return text();
        }
    }
}
