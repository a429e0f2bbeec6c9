package dev.unicomm.spi;

import dev.unicomm.api.Team;
import java.lang.foreign.MemorySegment;

/**
 * A {@link CallAgreement} whose exchange can also carry a few KiB of data from every member. With
 * it the API finishes small collectives in the agreement's own round: the call words and the data
 * travel together, so a small allreduce costs one all-member round instead of two (the agreement
 * and then the collective's first message). Every call, carried or not, still goes through the same
 * exchange, so a member that makes another call (a barrier, a larger collective) or rejected its own
 * arguments is seen by every member as before.
 */
public interface PayloadAgreement extends CallAgreement {
    /** Payload bytes one member may carry in one exchange; the same on every member of a job. */
    long payloadCapacity();

    /**
     * {@link #exchange(Team, long[])} that writes every member's words into {@code all} (one array of
     * {@value #WORDS} per team rank, owned by the caller and reused) and, if {@code payload} is not
     * null, also publishes its first {@code payloadBytes} bytes. Afterwards {@code inputs[i]} (if
     * {@code inputs} is not null) views member {@code i}'s payload of this exchange, from its first
     * byte; it is meaningful only where member {@code i}'s words say it carried one, and stays valid
     * until this member's next exchange over {@code team}. Allocates nothing per call.
     *
     * @throws IllegalArgumentException if {@code payloadBytes} exceeds {@link #payloadCapacity()}
     */
    void exchange(
            Team team, long[] words, long[][] all, MemorySegment payload, long payloadBytes, MemorySegment[] inputs);
}
