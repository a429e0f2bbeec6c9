package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.Availability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The soft-RoCE VM's two devices and the wire between them (src/test/vm/run-in-vm.sh): rxe0 on veth0
 * (10.77.0.1), rxe1 on veth1 (10.77.0.2), GID index 1 = each one's IPv4-mapped RoCE v2 GID. Tests that
 * need both skip elsewhere, and fail in the VM (UNICOMM_RDMA_REQUIRE) when either is missing.
 */
public final class WiredDevices {
    private WiredDevices() {}

    public static final String DEVICE_A = "rxe0";
    public static final String DEVICE_B = "rxe1";
    public static final String NETDEV_A = "veth0";
    public static final String NETDEV_B = "veth1";
    static final int GID_IPV4 = 1;
    static final int GID_LINK_LOCAL = 0;

    /** Skips (or fails in the VM) unless rxe0 and rxe1 exist on veth0 and veth1. */
    public static void require() {
        Availability a = new RdmaBackendProvider().availability();
        boolean wired = a.available()
                && Files.isDirectory(Path.of("/sys/class/infiniband", DEVICE_B))
                && Files.isDirectory(Path.of("/sys/class/net", NETDEV_A));
        String why = !a.available()
                ? a.cause()
                : "no " + DEVICE_B + " on " + NETDEV_B + " (the VM of src/test/vm/run-in-vm.sh has it)";
        if (!wired && System.getenv("UNICOMM_RDMA_REQUIRE") != null)
            throw new AssertionError("UNICOMM_RDMA_REQUIRE is set but the two wired devices are missing: " + why);
        if (!a.available()) RdmaDevice.skipNotice(a.cause());
        assumeTrue(wired, () -> "needs two soft-RoCE devices joined by a veth pair: " + why);
    }

    /** Bytes {@code netdev} has sent so far: traffic between the devices shows up here, loopback does not. */
    public static long txBytes(String netdev) {
        try {
            return Long.parseLong(Files.readString(Path.of("/sys/class/net", netdev, "statistics", "tx_bytes"))
                    .strip());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + netdev + "'s counters: " + e, e);
        }
    }

    /** Runs {@code ip args...} (root in the VM), bounded in time; fails on a non-zero exit. */
    static void ip(String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd + " did not finish in 30 s");
            }
            String out = new String(p.getInputStream().readAllBytes());
            if (p.exitValue() != 0)
                throw new IllegalStateException(cmd + " failed (" + p.exitValue() + "): " + out.strip());
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + cmd, e);
        }
    }

    /** Waits (bounded) until {@code device}'s port 1 reports {@code mtu} bytes: rxe follows its netdev's MTU asynchronously. */
    static void awaitActiveMtu(String device, int mtu) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int seen = -1;
        while (System.nanoTime() < end) {
            seen = dev.unicomm.backend.rdma.RdmaEndpoints.get().devices().stream()
                    .filter(n -> n.name().equals(device))
                    .findFirst()
                    .orElseThrow()
                    .ports()
                    .get(0)
                    .activeMtu();
            if (seen == mtu) return;
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException(
                device + "'s active MTU is " + seen + ", not " + mtu + ", 20 s after its netdev changed");
    }
}
