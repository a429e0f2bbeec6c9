package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue #46 item 2: a job started by Debian's Open MPI across two bed hosts (mpirun on node0, its daemon
 * started on node1 through the bed's remote-start agent) finds its rendezvous store and its secret from
 * what mpirun gives every rank: no MASTER_ADDR, MASTER_PORT or UNICOMM_TOKEN is set. Every rank then meets
 * the others, agrees on the two hosts, and fails in one line because shm cannot span them.
 */
@MultiHost(hosts = 2, ttlSeconds = 300)
class MpirunAcrossHostsTest {
    @Test
    void mpirunsRanksFindTheStoreAndAgreeOnTheHosts(TestBed bed) throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/mpirun")),
                "Open MPI's mpirun is not installed (apt-get install openmpi-bin)");
        Path agent = Path.of("").toAbsolutePath().getParent().resolve("scripts/testbed-rsh.sh");
        assertTrue(Files.isExecutable(agent), agent.toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = bed.command(
                        0,
                        List.of(
                                "timeout",
                                "120",
                                "mpirun",
                                "--allow-run-as-root",
                                "--host",
                                bed.address(0) + ":2," + bed.address(1) + ":2",
                                "-np",
                                "4",
                                "--mca",
                                "plm_rsh_agent",
                                agent.toString(),
                                "--mca",
                                "oob_tcp_if_include",
                                "eth0",
                                "--mca",
                                "btl_tcp_if_include",
                                "eth0",
                                "--mca",
                                "orte_abort_on_non_zero_status",
                                "0", // let every rank say its line (docs/running-jobs.md)
                                "--tag-output",
                                java,
                                "-Xmx64m",
                                "-XX:TieredStopAtLevel=1",
                                "-XX:-UsePerfData",
                                "-cp",
                                System.getProperty("java.class.path"),
                                ConnectOnce.class.getName()))
                .redirectErrorStream(true);
        for (String v : List.of("UNICOMM_TOKEN", "UNICOMM_STORE", "MASTER_ADDR", "MASTER_PORT", "UNICOMM_BACKEND"))
            pb.environment().remove(v);
        pb.environment().put("TESTBED_NAME", bed.name());
        Process p = pb.start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "mpirun did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        for (int r = 0; r < 4; r++) {
            Matcher m =
                    Pattern.compile("(?m)^\\[\\d+," + r + "\\]<stdout>:(.*)$").matcher(out);
            String line = m.find() ? m.group(1) : "(no line of rank " + r + ")";
            assertTrue(
                    line.startsWith(
                            "FAILED CommException: this job runs on 2 hosts: node0 (ranks 0-1), node1 (ranks 2-3), but no "
                                    + "backend on the class path can span hosts"),
                    out);
        }
        assertEquals(4, out.lines().filter(l -> l.contains("<stdout>:")).count(), "one line per rank:\n" + out);
    }
}
