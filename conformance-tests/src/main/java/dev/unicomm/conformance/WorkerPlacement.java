package dev.unicomm.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Where a suite's worker JVMs run, for a kit run across hosts ({@link KitSuite#placement()}): each rank's
 * command is wrapped by a command that runs it on that rank's host ({@code ssh nodeX}, a batch system's
 * step launcher, {@code scripts/testbed.sh exec nodeX --name BED --}). The kit then starts every worker
 * itself and talks to it over the wrapped command's standard input and output, so the hosts need not reach
 * the machine that runs the tests; they must reach each other, and rank 0's host at
 * {@link #rankZeroAddress()} (where the job's rendezvous stores listen).
 *
 * <p>The wrapper must pass the worker's standard input, output and error through unchanged, and must hand
 * the process environment the kit sets (rendezvous, token, backend settings) to the worker: a wrapper that
 * does not (plain {@code ssh}) can put {@code env NAME=VALUE ...} into its command. It must end when the
 * worker ends; a worker exits when its standard input closes.
 */
public interface WorkerPlacement {
    /** The command that runs {@code command} (a worker JVM) on rank {@code rank}'s host. */
    List<String> command(int rank, List<String> command);

    /** A name of rank {@code rank}'s host: ranks with equal names share a host (their local ranks count up from 0). */
    String host(int rank);

    /** An address of rank 0's host that every rank's host reaches: the rendezvous stores of the job listen there. */
    String rankZeroAddress();

    /**
     * A placement that puts {@code prefix.apply(host)} in front of each rank's command, with rank {@code r}
     * on host {@code hostOfRank.apply(r)}.
     */
    static WorkerPlacement byPrefix(
            IntFunction<String> hostOfRank,
            java.util.function.Function<String, List<String>> prefix,
            String rankZeroAddress) {
        Objects.requireNonNull(hostOfRank, "hostOfRank");
        Objects.requireNonNull(prefix, "prefix");
        if (rankZeroAddress == null || rankZeroAddress.isBlank())
            throw new IllegalArgumentException(
                    "a placement needs the address of rank 0's host that every host reaches");
        return new WorkerPlacement() {
            @Override
            public List<String> command(int rank, List<String> command) {
                List<String> c = new ArrayList<>(prefix.apply(host(rank)));
                c.addAll(command);
                return c;
            }

            @Override
            public String host(int rank) {
                return hostOfRank.apply(rank);
            }

            @Override
            public String rankZeroAddress() {
                return rankZeroAddress;
            }

            @Override
            public String toString() {
                return "placement by prefix, rank 0 at " + rankZeroAddress;
            }
        };
    }
}
