package dev.unicomm.api;

/**
 * Another rank failed or aborted; the job cannot go on. {@link #failedRank()} names it (or is
 * {@code -1} when the rendezvous host itself disappeared and no rank can be named). In elastic mode
 * a rank whose process died is reported with the subclass {@link RankFailedException}, after which
 * the survivors may go on with {@link Communicator#shrink()}.
 */
public class CommAbortedException extends CommException {
    private final int failedRank;

    public CommAbortedException(int failedRank, String reason) {
        super(message(failedRank, reason));
        this.failedRank = failedRank;
    }

    /**
     * "rank r failed: reason", said once: a reason that already starts with "rank r failed" (passed on
     * from another failure, or the shm watchdog's "rank r failed or hung") keeps its own words.
     */
    private static String message(int failedRank, String reason) {
        String who = failedRank >= 0 ? "rank " + failedRank : "the rendezvous host";
        if (reason == null) return who + " failed";
        return reason.startsWith(who + " failed") ? reason : who + " failed: " + reason;
    }

    /** The rank that failed, or {@code -1} if the rendezvous host was lost. */
    public int failedRank() {
        return failedRank;
    }
}
