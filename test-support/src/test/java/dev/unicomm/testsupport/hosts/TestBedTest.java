package dev.unicomm.testsupport.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bed's hosts share nothing that real hosts would not share, reach each other, and go away. */
@MultiHost(hosts = 2, ttlSeconds = 300)
class TestBedTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void eachHostHasItsOwnNameAddressAndProcesses(TestBed bed) {
        for (int h = 0; h < 2; h++) {
            TestBed.Ran r =
                    bed.run(h, LIMIT, "sh", "-c", "hostname; ip -4 -o addr show dev eth0; cat /proc/1/comm; ip route");
            assertEquals(0, r.exitCode(), r.output());
            List<String> lines = r.output().lines().toList();
            assertEquals("node" + h, lines.get(0));
            assertTrue(lines.get(1).contains(bed.address(h) + "/24"), r.output());
            assertEquals(
                    "sleep", lines.get(2), "PID 1 of the host is its holder, not the machine's init: " + r.output());
            assertTrue(
                    lines.stream().noneMatch(l -> l.startsWith("default")), "no route leaves the bed: " + r.output());
        }
    }

    @Test
    void devShmIsPrivateToEachHost(TestBed bed) {
        String marker = "testbed-marker-" + ProcessHandle.current().pid();
        assertEquals(0, bed.run(0, LIMIT, "touch", "/dev/shm/" + marker).exitCode());
        assertEquals(0, bed.run(0, LIMIT, "test", "-e", "/dev/shm/" + marker).exitCode(), "node0 sees its own file");
        assertEquals(
                1,
                bed.run(1, LIMIT, "test", "-e", "/dev/shm/" + marker).exitCode(),
                "node1 must not see node0's /dev/shm");
        assertFalse(Files.exists(Path.of("/dev/shm", marker)), "the machine must not see node0's /dev/shm");
    }

    @Test
    void hostsReachEachOtherOverTheBridge(TestBed bed) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String cp = System.getProperty("java.class.path");
        Process listener = bed.command(
                        1, List.of(java, "-cp", cp, EchoOnce.class.getName(), "listen", bed.address(1), "29451"))
                .redirectErrorStream(true)
                .start();
        try {
            TestBed.Ran ask =
                    bed.run(0, LIMIT, java, "-cp", cp, EchoOnce.class.getName(), "ask", bed.address(1), "29451");
            assertEquals(0, ask.exitCode(), ask.output());
            assertEquals("node1 saw " + bed.address(0), ask.output().strip());
        } finally {
            listener.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBedIsRemovedByCloseAndWhenItsOwnerDies() throws Exception {
        TestBed closed = TestBed.up(1, Duration.ofSeconds(120));
        assertEquals(2, closed.namespaces().size(), "a host and the bridge");
        closed.close();
        assertEquals(List.of(), closed.namespaces());

        // An owner killed without closing: the watchdog removes the bed within a few seconds.
        Process owner = new ProcessBuilder("sleep", "120").start();
        Path script = TestBed.findScript().orElseThrow();
        Process up = new ProcessBuilder(
                        script.toString(),
                        "up",
                        "1",
                        "--name",
                        "tbown" + (ProcessHandle.current().pid() % 10000),
                        "--ttl",
                        "120",
                        "--owner",
                        Long.toString(owner.pid()))
                .redirectErrorStream(true)
                .start();
        assertTrue(up.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, up.exitValue(), new String(up.getInputStream().readAllBytes()));
        String bedName = "tbown" + (ProcessHandle.current().pid() % 10000);
        assertTrue(netns().contains(bedName + "-h0"));
        owner.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (netns().contains(bedName + "-") && System.nanoTime() < deadline) Thread.sleep(200);
        assertFalse(netns().contains(bedName + "-"), "the bed of a dead owner must be gone: " + netns());
    }

    private static String netns() throws Exception {
        Process p = new ProcessBuilder("ip", "netns", "list")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }
}
