package dev.unicomm.backend.ucx.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ucx transfer endpoints across two bed hosts: initiator on node0, target on node1, UCX over TCP on eth0
 * ({@link HostsEndpoint}). With {@code -Dunicomm.ucx.bench=true} the initiator also measures WRITE and READ
 * bandwidth from 8 KiB to 64 MiB blocks, and {@code ucx_perftest -t ucp_put_bw} runs between the same hosts
 * in the same run.
 */
@MultiHost(hosts = 2, ttlSeconds = 600)
class UcxEndpointHostsTest {
    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    @Test
    void batchedReadWriteImmediateAndSendBetweenTwoHosts(TestBed bed, @TempDir Path dir) throws Exception {
        boolean bench = Boolean.getBoolean("unicomm.ucx.bench");
        String before = Files.readString(Path.of("/proc/loadavg")).strip();
        BedProcess target = BedProcess.start(
                bed, 1, HostsEndpoint.class.getName(), BedProcess.overTheBed(), "target", dir.toString());
        BedProcess initiator = BedProcess.start(
                bed,
                0,
                HostsEndpoint.class.getName(),
                BedProcess.overTheBed(),
                "initiator",
                dir.toString(),
                bench ? "bench" : "check");
        try {
            assertTrue(
                    initiator.process.waitFor(bench ? 300 : 120, TimeUnit.SECONDS),
                    "initiator hung:\n" + initiator.output());
            assertTrue(target.process.waitFor(30, TimeUnit.SECONDS), "target hung:\n" + target.output());
            initiator.await("PASS", 2);
            target.await("PASS", 2);
            assertEquals(0, initiator.process.exitValue(), "initiator on node0:\n" + initiator.output());
            assertEquals(0, target.process.exitValue(), "target on node1:\n" + target.output());
            assertTrue(initiator.output().contains("PASS initiator"), initiator.output());
            assertTrue(target.output().contains("PASS target"), target.output());
        } finally {
            initiator.kill();
            target.kill();
        }
        if (!bench) return;
        List<String> report = new ArrayList<>(
                initiator.lines.stream().filter(l -> l.startsWith("BENCH")).toList());
        for (long size = 8 << 10; size <= 64L << 20; size *= 4) report.add(perftest(bed, size));
        report.add("loadavg before " + before + ", after "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        report.forEach(System.out::println);
    }

    /** {@code ucx_perftest -t ucp_put_bw}: server on node1, client on node0, ~256 MiB per size (at least 8 iterations). */
    private static String perftest(TestBed bed, long size) throws Exception {
        int port = 30_000 + ThreadLocalRandom.current().nextInt(10_000);
        long iters = Math.max(8, (256L << 20) / size);
        List<String> common = List.of(
                "-t",
                "ucp_put_bw",
                "-s",
                Long.toString(size),
                "-n",
                Long.toString(iters),
                "-p",
                Integer.toString(port));
        List<String> server = new ArrayList<>(List.of("ucx_perftest"));
        server.addAll(common);
        ProcessBuilder sb = bed.command(1, server).redirectErrorStream(true);
        sb.environment().putAll(BedProcess.overTheBed());
        Process s = sb.start();
        try {
            Thread.sleep(1500);
            List<String> client = new ArrayList<>(List.of("ucx_perftest", bed.address(1)));
            client.addAll(common);
            ProcessBuilder cb = bed.command(0, client).redirectErrorStream(true);
            cb.environment().putAll(BedProcess.overTheBed());
            Process c = cb.start();
            boolean done = c.waitFor(120, TimeUnit.SECONDS);
            String text = new String(c.getInputStream().readAllBytes());
            if (!done) c.destroyForcibly();
            List<String> rows =
                    text.lines().filter(l -> l.matches("^\\s*Final:.*")).toList();
            return "PERFTEST ucp_put_bw size=" + size + " iters=" + iters + " "
                    + (rows.isEmpty()
                            ? "no Final line: " + text.strip()
                            : rows.get(0).strip())
                    + "  [iterations, latency typical/avg/overall usec, bandwidth avg/overall MB/s, msg rate avg/overall]";
        } finally {
            s.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
