package dev.unicomm.conformance.moe;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs an N-rank shm job with one thread per rank, through the real entry point (TCP store on loopback). */
final class ThreadRanks {
    private ThreadRanks() {}

    interface Body { void run(Communicator comm) throws Exception; }

    static void run(int n, long heapBytes, Body body) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port for the store", e);
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                CommConfig cfg = new CommConfig("shm", r, n, r, "127.0.0.1", port, "thread-ranks-token", false, Duration.ofSeconds(30),
                        heapBytes, Map.of());
                futures.add(pool.submit(() -> {
                    try (Communicator comm = Unicomm.connect(cfg)) {
                        body.run(comm);
                    }
                    return null;
                }));
            }
            // Report the root failure: an assertion beats the errors other ranks then see (mismatched collectives).
            Throwable first = null;
            for (int r = 0; r < n; r++) {
                try {
                    futures.get(r).get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (first == null || (c instanceof AssertionError && !(first instanceof AssertionError))) first = c;
                    else first.addSuppressed(c);
                }
            }
            if (first instanceof Exception e) throw e;
            if (first instanceof Error e) throw e;
        } finally {
            pool.shutdownNow();
        }
    }
}
