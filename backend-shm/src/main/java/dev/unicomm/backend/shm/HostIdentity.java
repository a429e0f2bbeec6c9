package dev.unicomm.backend.shm;

import dev.unicomm.api.CommException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which machine (and boot) a PE runs on: shared memory only reaches PEs of one host, so a job
 * spread over hosts must fail at once with the hosts named, not later with "file missing".
 */
final class HostIdentity {
    private HostIdentity() {}

    /** {@code hostname/boot-id} of this process's machine (the boot id tells apart hosts with equal names). */
    static String current() {
        // Read from /proc rather than InetAddress.getLocalHost(), which may wait on DNS.
        String name = read("/proc/sys/kernel/hostname", System.getenv().getOrDefault("HOSTNAME", "unknown-host"));
        return name + "/" + read("/proc/sys/kernel/random/boot_id", "no-boot-id");
    }

    private static String read(String file, String fallback) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException | SecurityException e) {
            return fallback;
        }
    }

    /**
     * @throws CommException naming the hosts if the PEs are not all on one host
     */
    static void requireOneHost(String[] hosts) {
        for (int pe = 1; pe < hosts.length; pe++) {
            if (!hosts[pe].equals(hosts[0]))
                throw new CommException("the shm backend needs every PE on one host, but rank 0 runs on " + hosts[0]
                        + " and rank " + pe + " on " + hosts[pe] + "; use a network backend (e.g. rdma) for multi-host jobs");
        }
    }
}
