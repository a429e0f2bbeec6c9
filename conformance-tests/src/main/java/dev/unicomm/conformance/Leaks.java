package dev.unicomm.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What this process holds, for the lifecycle rules: file descriptors, threads, shared-memory files. */
public final class Leaks {
    private Leaks() {}

    /** Open file descriptors of this process, as "fd -> target". */
    public static Set<String> fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.map(p -> {
                        try {
                            return p.getFileName() + " -> " + Files.readSymbolicLink(p);
                        } catch (IOException e) {
                            return null; // the fd used to list the folder is gone already
                        }
                    })
                    .filter(x -> x != null)
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd: " + e, e);
        }
    }

    private static final Set<String> JDK_SCHEDULER_THREADS =
            Set.of("jdk.internal.misc.CarrierThread", "java.util.concurrent.DelayScheduler");

    /** Live threads, as "name#id". */
    public static Set<String> threads() {
        // Carrier threads belong to the JDK's virtual-thread scheduler, which grows its pool on demand
        // (the store server runs on virtual threads) and retires idle carriers after a keep-alive; since
        // JDK 25 that pool also starts one DelayScheduler thread at the first timed park of a virtual thread.
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> !JDK_SCHEDULER_THREADS.contains(t.getClass().getName()))
                .map(t -> t.getName() + "#" + t.threadId())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Files under /dev/shm this process maps or holds open (a "(deleted)" suffix is dropped). */
    public static Set<String> shmFiles() {
        Set<String> out = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                int i = line.indexOf("/dev/shm/");
                if (i >= 0) out.add(line.substring(i).replace(" (deleted)", "").trim());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/maps: " + e, e);
        }
        for (String fd : fds()) {
            int i = fd.indexOf("/dev/shm/");
            if (i >= 0) out.add(fd.substring(i).replace(" (deleted)", "").trim());
        }
        return out;
    }

    /** Whether this is Linux with /proc (where the probes work). */
    public static boolean supported() {
        return Files.isDirectory(Path.of("/proc/self/fd"));
    }
}
