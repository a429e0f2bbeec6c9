package dev.unicomm.internal.rendezvous;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Heartbeats between the ranks and the rendezvous host. A crashed process closes its connection and is
 * seen at once; a host whose network link went down, a lost machine or a stopped (SIGSTOP) process sends
 * nothing and closes nothing, so without them the job would only learn of it when each wait timed out,
 * without a name. Each rank pings every {@link #PING_INTERVAL}; the host answers; a side that hears nothing
 * for {@link #silenceLimit(Duration)} reports the other as failed.
 */
final class Liveness {
    /** How often a rank pings the host: small next to any limit, cheap (a 9-byte frame) even for a large job. */
    static final Duration PING_INTERVAL = Duration.ofSeconds(1);
    /** The shortest silence that counts as a failure: long enough that a loaded machine or a GC pause never trips it. */
    static final Duration MIN_SILENCE = Duration.ofSeconds(5);

    private Liveness() {}

    /**
     * Silence after which a peer counts as failed, for a job whose waits last {@code timeout}: half of it (so
     * that a wait on a silent rank ends with the rank's name, not a bare timeout), and never below {@link #MIN_SILENCE}.
     */
    static Duration silenceLimit(Duration timeout) {
        Duration half = timeout.dividedBy(2);
        return half.compareTo(MIN_SILENCE) < 0 ? MIN_SILENCE : half;
    }

    /** "2, 3" for a message. */
    static String list(List<Integer> ranks) {
        return ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
