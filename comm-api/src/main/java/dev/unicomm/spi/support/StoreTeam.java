package dev.unicomm.spi.support;

import dev.unicomm.api.Team;
import dev.unicomm.spi.Store;

/**
 * A team for backends whose PEs meet in the rendezvous {@link Store}. Splits are collective over the
 * parent and name the child after the parent and the split's sequence number, so members agree on the
 * name without talking. The barrier completes this PE's RMA (quiet) first, then counts the members'
 * arrivals in the store, unless the team was made with a barrier of its own (a backend's world team that
 * meets over its own transport); its splits meet in the store.
 */
public final class StoreTeam extends RankListTeam {
    private final Scope scope;
    private final String id;
    private final Runnable ownBarrier;
    private int splits;
    private long barriers;

    /**
     * What all teams of one communicator share.
     *
     * @param label the name {@link #toString()} starts with (e.g. {@code RdmaTeam})
     * @param store the job's rendezvous store
     * @param keyPrefix the prefix of the communicator's store keys
     * @param quiet completes this PE's RMA
     * @param worldRank this PE's world rank
     */
    public record Scope(String label, Store store, String keyPrefix, Runnable quiet, int worldRank) {}

    /**
     * @param scope what the communicator's teams share
     * @param id the team's name, the same on every member ({@code world} for the world team)
     * @param members the world rank of each team rank
     */
    public StoreTeam(Scope scope, String id, int[] members) {
        this(scope, id, members, null);
    }

    /**
     * A team whose {@link #barrier()} is {@code barrier} instead of a meeting in the store; its splits meet in the
     * store.
     *
     * @param scope what the communicator's teams share
     * @param id the team's name, the same on every member
     * @param members the world rank of each team rank
     * @param barrier completes this PE's RMA and meets the members (the same on every member), or null for the store's
     * @since 2026-12-06
     */
    public StoreTeam(Scope scope, String id, int[] members, Runnable barrier) {
        super(members, indexOf(members, scope.worldRank()));
        this.scope = scope;
        this.id = id;
        this.ownBarrier = barrier;
    }

    @Override
    public synchronized Team split(int start, int stride, int size) {
        return new StoreTeam(scope, id + "." + (splits++), pick(start, stride, size));
    }

    /** OpenSHMEM's split_2d: rows of {@code xRange} consecutive team ranks, columns of equal {@code rank % xRange}. */
    @Override
    public synchronized Split2d split2d(int xRange) {
        Grid g = grid(xRange);
        int s = splits++;
        // Ids carry the row/column so different rows (columns) get different teams.
        return new Split2d(
                new StoreTeam(scope, id + ".x" + s + "r" + g.row(), g.rowMembers()),
                new StoreTeam(scope, id + ".y" + s + "c" + g.col(), g.colMembers()));
    }

    @Override
    public void barrier() {
        if (ownBarrier != null) {
            ownBarrier.run();
            return;
        }
        scope.quiet().run();
        long epoch;
        synchronized (this) {
            epoch = barriers++;
        }
        Store store = scope.store();
        String key = scope.keyPrefix() + "team/" + id + "/barrier/" + epoch;
        if (store.add(key, 1) == size()) store.set(key + "/done", new byte[] {1});
        else store.get(key + "/done");
    }

    /** A team is a list of ranks: nothing to release. */
    @Override
    public void close() {}

    @Override
    public String toString() {
        return scope.label() + "[" + id + ", rank " + rank() + "/" + size() + "]";
    }
}
