package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #46: a 2-host x 2-rank job through {@code unicomm run --nnodes 2} on the test bed, one launcher per
 * host. Without --backend the ranks agree that they span two hosts and select ucx (the backend here that
 * spans hosts); with --backend shm every rank fails at connect in one line naming the hosts.
 */
@MultiHost(hosts = 2, ttlSeconds = 400)
@Timeout(600)
class RunAcrossHostsTest {
    static final String TOKEN = "secret-of-the-job-on-two-hosts-0123456789";

    @Test
    void aJobOfTwoHostsSelectsABackendThatSpansThemAndKnowsItsHosts(TestBed bed) throws Exception {
        boolean ucx = BackendRegistry.load().providers().stream()
                .anyMatch(p -> p.name().equals("ucx") && p.availability().available());
        assumeTrue(ucx, "backend ucx is not available here (apt-get install libucx0)");
        List<String> outs = job(bed, List.of());
        for (int node = 0; node < 2; node++) {
            for (int local = 0; local < 2; local++) {
                int rank = node * 2 + local;
                String want = "[" + local + "] RANK " + rank + "/4 local " + local + "/2 host " + node
                        + "/2 sum 6 nodesum " + (node == 0 ? 1 : 5);
                assertTrue(outs.get(node).contains(want), "node " + node + " wants '" + want + "':\n" + outs.get(node));
            }
        }
    }

    @Test
    void shmAcrossTwoHostsFailsEveryRankInOneLine(TestBed bed) throws Exception {
        List<String> outs = job(bed, List.of("--backend", "shm"));
        for (int node = 0; node < 2; node++)
            for (int local = 0; local < 2; local++)
                assertTrue(
                        outs.get(node)
                                .contains("[" + local
                                        + "] FAILED CommException: backend 'shm' cannot span hosts, but this job runs on "
                                        + "2 hosts: node0 (ranks 0-1), node1 (ranks 2-3)"),
                        outs.get(node));
    }

    /** Both launchers' output; each must exit within the limit (0 for a job that ran, else non-zero). */
    private static List<String> job(TestBed bed, List<String> extra) throws Exception {
        List<Process> launchers = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            List<String> cmd = MultiNodeArgs.concat(
                    MultiNodeArgs.javaRun("UNICOMM_TOKEN=" + TOKEN),
                    MultiNodeArgs.node(2, node, 2, bed.address(0), 29517),
                    List.of(
                            "--wait-timeout",
                            "60s",
                            "--timeout",
                            "240s",
                            "-J-XX:-UsePerfData",
                            "-J-XX:TieredStopAtLevel=1"));
            cmd.addAll(extra);
            cmd.addAll(List.of("--", TopologyRank.class.getName()));
            launchers.add(bed.command(node, cmd).redirectErrorStream(true).start());
        }
        List<String> outs = new ArrayList<>();
        for (Process p : launchers) {
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "launcher did not finish");
            outs.add(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        boolean failing = extra.contains("shm");
        for (int node = 0; node < 2; node++)
            assertEquals(
                    failing,
                    launchers.get(node).exitValue() != 0,
                    "node " + node + " exit " + launchers.get(node).exitValue() + ":\n" + outs.get(node));
        return outs;
    }
}
