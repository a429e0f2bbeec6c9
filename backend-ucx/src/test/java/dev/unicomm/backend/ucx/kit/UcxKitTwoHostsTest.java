package dev.unicomm.backend.ucx.kit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.WorkerPlacement;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;
import dev.unicomm.testsupport.hosts.TestBed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every suite of the kit's default run against backend-ucx with 4 ranks on two hosts of a {@link TestBed}:
 * ranks 0 and 1 on node0, 2 and 3 on node1 (the kit starts each worker through {@code testbed.sh exec} and
 * talks to it over its standard input and output; rank 0's stores listen on node0's bed address). UCX over
 * {@code UCX_TLS=tcp} on the bed's {@code eth0}, so every byte between the hosts crosses the bed's bridge.
 * With {@code unicomm.moe.algorithm} at its default (auto), the normal-mode MoE rules must run the hierarchical
 * MoE and the world's allgather, allreduce and reduce-scatter two levels ({@link UcxKitAlgorithms}).
 * Needs root (the test bed); skips with the bed's reason elsewhere.
 */
class UcxKitTwoHostsTest extends DefaultRunKitTest {
    static final int RANKS = 4;
    /** TCP on the bed's interface only: {@code lo} would look reachable from both hosts. */
    static final Map<String, String> BED_TCP = Map.of("UCX_TLS", "tcp", "UCX_NET_DEVICES", "eth0");

    private static TestBed bed;
    private static WorkerPlacement placement;
    static final KitPlug PLUG =
            UcxKit.PLUG.ranks(RANKS).workerEnvironment(BED_TCP).placement(() -> placement);

    @BeforeAll
    static void upBed() {
        UcxAvailable.assume();
        TestBed.unavailableReason().ifPresent(reason -> assumeTrue(false, reason));
        bed = TestBed.up(2, Duration.ofMinutes(20));
        TestBed b = bed;
        placement = WorkerPlacement.byPrefix(
                rank -> b.hostName(rank < RANKS / 2 ? 0 : 1),
                host -> b.command(Integer.parseInt(host.substring("node".length())), List.of())
                        .command(),
                b.address(0));
    }

    /** The rules took the two-level paths (the report's "ran:" lines); then the bed goes. */
    @AfterAll
    static void downBed() {
        try {
            if (bed != null) UcxKitAlgorithms.assertTwoLevel(KitSuites.algorithms(UcxKitTwoHostsTest.class));
        } finally {
            if (bed != null) bed.close();
            bed = null;
        }
    }
}
