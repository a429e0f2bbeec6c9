package dev.unicomm.spi;

import java.util.Map;

/**
 * Implemented by a collectives or MoE implementation that can say which of its algorithms ran: the API
 * sums these into {@link dev.unicomm.api.Communicator#algorithmCounts()}, so a report or test can tell a
 * flat call from a two-level one without knowing the implementation.
 */
public interface AlgorithmCounts {
    /**
     * Calls this implementation ran since it was created, keyed {@code operation/algorithm}, both lower
     * case (e.g. {@code allreduce/two_level}, {@code moe.dispatch/hierarchical}); a snapshot the caller may keep.
     */
    Map<String, Long> algorithmCounts();
}
