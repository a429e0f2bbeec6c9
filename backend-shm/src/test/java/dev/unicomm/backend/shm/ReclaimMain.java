package dev.unicomm.backend.shm;

import java.nio.file.Path;

/** Runs one stale-file sweep of a folder (as the next job's open does) and prints what it deleted. */
public final class ReclaimMain {
    private ReclaimMain() {}

    public static void main(String[] args) {
        System.out.println("RESULT removed " + SegmentFiles.reclaimStale(Path.of(args[0])));
    }
}
