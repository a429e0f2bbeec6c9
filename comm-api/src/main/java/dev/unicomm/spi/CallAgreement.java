package dev.unicomm.spi;

import dev.unicomm.api.Team;

/**
 * A barrier over a team that carries {@value #WORDS} words from every member: the primitive the API
 * uses to check, on every member, that all members make the same collective call (sequence number,
 * operation, key arguments). Backends that can do it as cheaply as a plain barrier (shared memory:
 * the words sit next to the barrier flags) provide it; with it every barrier, internal ones included,
 * carries a call word, so no barrier can be satisfied by a different user-level call.
 */
public interface CallAgreement {
    /** Words each member contributes. */
    int WORDS = 4;

    /**
     * Barrier over {@code team} (the backend's own team object) that also completes this PE's
     * outstanding RMA, like {@link Team#barrier()}.
     *
     * @param words {@value #WORDS} words
     * @return every member's words, by team rank (this member's included)
     */
    long[][] exchange(Team team, long[] words);

    /**
     * Whether an exchange costs about what a plain barrier does, so that every barrier and every MoE
     * call may carry words (shared memory). When false (an exchange costs a few barriers, as on a
     * GPU), the API agrees only on calls whose own cost dwarfs it: collectives, heap allocation and
     * freeing, team splits and MoE buffer opening; barriers and MoE dispatch/combine run unchecked.
     */
    default boolean coversEveryCall() {
        return true;
    }
}
