package dev.unicomm.backend.ascend;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * One rank of {@link MultiProcessStandInTest}'s jobs (started by the project's JobLauncher). Args:
 * the scenario and a comma list of free ports for communicators that need their own store.
 * Prints {@code OK scenario} and exits 0, or a stack trace and exits 1.
 */
public final class AscendWorker {
    private AscendWorker() {}

    public static void main(String[] args) throws Exception {
        String scenario = args[0];
        int[] ports = args.length > 1
                ? Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[0];
        try {
            switch (scenario) {
                case "cycles" -> cycles(ports);
                case "streams" -> streams();
                case "mismatch" -> mismatch();
                case "second-instance" -> secondInstance(ports);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            System.out.println("OK " + scenario);
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static CommConfig config(int port) {
        Map<String, String> env = new HashMap<>(System.getenv());
        if (port > 0) env.put("UNICOMM_STORE", "127.0.0.1:" + port);
        return CommConfig.fromEnvironment(env, new Properties());
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 7 + seed * 131 + 1);
        return b;
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    /** Open/close cycles, each with its own store, leave no descriptors, threads or shared-memory files behind. */
    private static void cycles(int[] ports) throws IOException, InterruptedException {
        cycle(config(ports[0]), 0); // warm-up: class loading, the JNI library, ACL's first context
        java.util.Set<String> fds = fds();
        long streams = streamThreads(), shm = standinShm();
        int javaThreads = Thread.activeCount();
        for (int i = 1; i < ports.length; i++) cycle(config(ports[i]), i);
        // The rendezvous store's sockets and threads end asynchronously: give them two seconds.
        long deadline = System.nanoTime() + 2_000_000_000L;
        while ((fds().size() > fds.size() || Thread.activeCount() > javaThreads) && System.nanoTime() < deadline)
            Thread.sleep(20);
        java.util.Set<String> added = new java.util.TreeSet<>(fds());
        added.removeAll(fds);
        long streams2 = streamThreads(), shm2 = standinShm();
        check(
                fds().size() <= fds.size(),
                "open/close cycles leaked file descriptors: " + fds.size() + " -> " + fds().size() + ", new: " + added);
        check(streams2 <= streams, "open/close cycles leaked ACL stream threads: " + streams + " -> " + streams2);
        check(
                Thread.activeCount() <= javaThreads,
                "open/close cycles leaked Java threads: " + javaThreads + " -> " + Thread.activeCount());
        check(shm2 <= shm, "open/close cycles left stand-in shared-memory files: " + shm + " -> " + shm2);
    }

    private static void cycle(CommConfig cfg, int seed) {
        try (Communicator c = Unicomm.connect(cfg)) {
            int right = (c.rank() + 1) % c.size(), left = (c.rank() + c.size() - 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(1 << 16)) {
                c.rma().put(b, 0, MemorySegment.ofArray(pattern(1 << 16, seed * 16 + c.rank())), right);
                c.rma().quiet();
                c.barrier();
                byte[] got = new byte[1 << 16];
                c.rma().get(MemorySegment.ofArray(got), b, 0, c.rank());
                check(
                        Arrays.equals(got, pattern(1 << 16, seed * 16 + left)),
                        "cycle " + seed + ": data from the left neighbour");
                c.barrier();
            }
        }
    }

    /** A ring on a user stream with device operands: put-with-signal, wait, barrier and get, all stream-ordered. */
    private static void streams() {
        try (Communicator c = Unicomm.connect(config(0))) {
            int n = c.size(), right = (c.rank() + 1) % n, left = (c.rank() + n - 1) % n;
            var d = c.device();
            try (SymmetricBuffer data = c.heap().allocate(8192);
                    SymmetricBuffer sig = c.heap().allocate(64);
                    DeviceBuffer src = d.allocate(8192);
                    DeviceBuffer dst = d.allocate(8192);
                    Stream s = d.createStream()) {
                d.fill(sig, 0, 64, (byte) 0);
                d.copy(src, 0, Memory.of(MemorySegment.ofArray(pattern(8192, c.rank()))), 0, 8192);
                c.barrier();
                Rma on = c.rma().on(s);
                for (int round = 1; round <= 5; round++) {
                    on.putSignal(data, 0, src, 0, 8192, sig, 0, round, SignalOp.SET, right);
                    check(on.signalWaitUntil(sig, 0, Cmp.EQ, round) == round, "round " + round + " signal");
                    c.world().barrier(s); // both have read their signal before the next round's put
                }
                on.get(dst, 0, data, 0, 8192, right); // right's copy holds what its left (this PE) sent
                s.synchronize();
                byte[] got = new byte[8192];
                d.copy(Memory.of(MemorySegment.ofArray(got)), 0, dst, 0, 8192);
                check(
                        Arrays.equals(got, pattern(8192, c.rank())),
                        "stream get of what this PE put into its right neighbour");
                d.copy(Memory.of(MemorySegment.ofArray(got)), 0, data, 0, 8192);
                check(Arrays.equals(got, pattern(8192, left)), "data from the left neighbour");
                // aclshmem_ptr: the right neighbour's copy as an address on this PE's device
                Memory peer = data.peerMemory(right)
                        .orElseThrow(() -> new AssertionError("aclshmem_ptr returned NULL for a peer"));
                check(
                        !peer.kind().isHost() && peer.address() != data.address(),
                        "peer memory is device memory elsewhere: " + peer);
                d.copy(Memory.of(MemorySegment.ofArray(got)), 0, peer, 0, 8192);
                check(Arrays.equals(got, pattern(8192, c.rank())), "right neighbour's copy read through aclshmem_ptr");
                c.barrier();
            }
        }
    }

    /**
     * Ranks with different heap sizes all fail before the collective init, naming the difference:
     * the disagreeing rank with IllegalArgumentException, the others with it too or with the
     * store's abort that carries its message, whichever they see first.
     */
    private static void mismatch() {
        CommConfig cfg = config(0);
        cfg = cfg.withHeapSize(cfg.rank() == 1 ? 32L << 20 : 16L << 20);
        try (Communicator c = Unicomm.connect(cfg)) {
            throw new AssertionError("opened although the ranks asked for different heaps: " + c);
        } catch (IllegalArgumentException | dev.unicomm.api.CommAbortedException e) {
            check(e.getMessage().contains("ascend settings differ between ranks"), "message: " + e.getMessage());
            check(
                    cfg.rank() != 1 || e instanceof IllegalArgumentException,
                    "the disagreeing rank must see IllegalArgumentException: " + e);
        }
    }

    /** A second communicator in the same process is refused with the reason (one Ascend SHMEM instance per process). */
    private static void secondInstance(int[] ports) {
        try (Communicator first = Unicomm.connect(config(ports[0]))) {
            try (Communicator second = Unicomm.connect(config(ports[1]))) {
                throw new AssertionError("a second communicator opened: " + second);
            } catch (CommException e) {
                check(e.getMessage().contains("one instance per process"), "message: " + e.getMessage());
            }
            first.barrier(); // the first one still works
        }
    }

    /** This process's open descriptors as "fd -> target". */
    private static java.util.Set<String> fds() throws IOException {
        java.util.Set<String> out = new java.util.TreeSet<>();
        try (java.util.stream.Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : s.toList()) {
                try {
                    out.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException e) {
                    // closed while we looked (the listing's own descriptor, too)
                }
            }
        }
        return out;
    }

    /** The stand-in's stream worker threads (it names them). */
    private static long streamThreads() throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            return s.filter(t -> {
                        try {
                            return Files.readString(t.resolve("comm")).strip().equals("standin-stream");
                        } catch (IOException e) {
                            return false; // the thread ended while we looked
                        }
                    })
                    .count();
        }
    }

    private static long standinShm() throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.filter(p -> p.getFileName().toString().startsWith("uca_standin_"))
                    .count();
        }
    }
}
