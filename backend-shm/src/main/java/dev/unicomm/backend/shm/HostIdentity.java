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

    /**
     * {@code hostname/boot-id shm-device D} where D is the device of the shm folder {@code dir}: what decides
     * whether two PEs share memory is that folder's file system (one tmpfs), not the hostname (containers
     * started with the host's UTS namespace share the name but each mounts its own {@code /dev/shm}).
     */
    static String current(Path dir) {
        return current() + " shm-device " + device(dir);
    }

    /**
     * @throws CommException in one line, before this PE looks for rank 0's files, when it does not see
     *     rank 0's shm folder (another host, or the same host name with another {@code /dev/shm})
     */
    static void requireSameShm(String rank0, String mine, int rank) {
        if (rank0.equals(mine)) return;
        String why = rank0.substring(0, rank0.indexOf(' ')).equals(mine.substring(0, mine.indexOf(' ')))
                ? "the same host but another shared-memory folder (a container with its own /dev/shm?)"
                : "another host";
        throw new CommException("the shm backend needs every PE to share one shared-memory folder, but rank 0 runs on "
                + rank0 + " and rank " + rank + " on " + mine + " (" + why
                + "); share /dev/shm between them, or use a network backend (ucx, rdma)");
    }

    private static String device(Path dir) {
        try {
            return Long.toString(((Number) Files.getAttribute(dir, "unix:dev")).longValue());
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return "unknown";
        }
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
                throw new CommException(
                        "the shm backend needs every PE on one host, but rank 0 runs on " + hosts[0] + " and rank " + pe
                                + " on " + hosts[pe] + "; use a network backend (e.g. rdma) for multi-host jobs");
        }
    }
}
