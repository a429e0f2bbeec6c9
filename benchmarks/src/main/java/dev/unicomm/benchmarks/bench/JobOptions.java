package dev.unicomm.benchmarks.bench;

import dev.unicomm.launch.JobSpec;
import picocli.CommandLine.Option;

/**
 * {@code --backend} and {@code -n} of the bench commands that run every job at one size on backend-shm
 * by default ({@code bench moe}, {@code bench soak}). {@code bench rma} and {@code bench collectives}
 * declare their own: their {@code -n} is a different option (at least 2 ranks; a list of job sizes).
 */
public final class JobOptions {
    @Option(names = "--backend", defaultValue = "shm", description = "Backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "-n", defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    /** A job of {@code -n} ranks, each running {@code worker} with {@code args}, on {@code --backend}. */
    JobSpec spec(Class<?> worker, String... args) {
        return JobSpec.of(ranks, worker.getName(), args).withBackend(backend);
    }
}
