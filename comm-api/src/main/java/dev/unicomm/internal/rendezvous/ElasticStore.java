package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.spi.Store;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One communicator's view of the job's store in elastic mode. Its keys live in the generation
 * {@code e<N>/} of the failure epoch it was formed at, so the host answers "rank failed" to any of its
 * requests once a later rank death is recorded; {@link #checkHealthy()} reports such a death at once
 * from the host's last push. Ranks it names are the communicator's ({@link #jobRanks} maps them to the
 * job's). The store connection itself outlives the view: {@link #agreeOnSurvivors} hands it on.
 */
public final class ElasticStore implements Store {
    private static final String SHRINK = "unicomm.elastic/shrink/";

    private final TcpStore root;
    private final int epoch;
    private final int[] jobRanks;
    private final String prefix;
    private final Duration timeout;
    private volatile boolean ownsRoot;

    /** The view of the communicator opened at connect: every job rank, generation 0; owns {@code root}. */
    public static ElasticStore atConnect(TcpStore root, Duration timeout) {
        int[] all = new int[root.size()];
        for (int i = 0; i < all.length; i++) all[i] = i;
        return new ElasticStore(root, 0, all, timeout);
    }

    private ElasticStore(TcpStore root, int epoch, int[] jobRanks, Duration timeout) {
        this.root = root;
        this.epoch = epoch;
        this.jobRanks = jobRanks;
        this.prefix = "e" + epoch + "/";
        this.timeout = timeout;
        this.ownsRoot = true;
    }

    /** The job rank of each rank of this view's communicator. */
    public int[] jobRanks() {
        return jobRanks.clone();
    }

    /** The failure epoch this view was formed at. */
    public int epoch() {
        return epoch;
    }

    @Override
    public void set(String key, byte[] value) {
        try {
            root.set(prefix + key, value);
        } catch (RankFailedException e) {
            throw renumbered(root.deaths());
        }
    }

    @Override
    public byte[] get(String key) {
        return get(key, timeout);
    }

    @Override
    public byte[] get(String key, Duration limit) {
        try {
            return root.get(prefix + key, limit);
        } catch (RankFailedException e) {
            throw renumbered(root.deaths());
        }
    }

    @Override
    public long add(String key, long delta) {
        try {
            return root.add(prefix + key, delta);
        } catch (RankFailedException e) {
            throw renumbered(root.deaths());
        }
    }

    @Override
    public boolean contains(String key) {
        try {
            return root.contains(prefix + key);
        } catch (RankFailedException e) {
            throw renumbered(root.deaths());
        }
    }

    /** As the job store's barrier, over this view's ranks. */
    @Override
    public void barrier(String name) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String base = "unicomm/barrier/" + name;
        long arrived = add(base + "/count", 1);
        if (arrived > jobRanks.length)
            throw new IllegalStateException("barrier '" + name + "' was entered " + arrived + " times by "
                    + jobRanks.length + " ranks: use each barrier name once per rank");
        if (arrived == jobRanks.length) {
            set(base + "/open", new byte[] {1});
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) throw new CommTimeoutException("store barrier('" + name + "')", timeout);
        get(base + "/open", Duration.ofNanos(left));
    }

    /** An explicit abort still fails the whole job. */
    @Override
    public void abort(String reason) {
        root.abort(reason);
    }

    /** Job aborted: {@link dev.unicomm.api.CommAbortedException}; a rank of this view died: {@link RankFailedException}. */
    @Override
    public void checkHealthy() {
        root.checkHealthy();
        TcpStore.Deaths d = root.deaths();
        if (d.epoch() > epoch) throw renumbered(d);
    }

    /** The deaths of {@code d} among this view's ranks, in its numbering. */
    private RankFailedException renumbered(TcpStore.Deaths d) {
        int[] mine = Arrays.stream(d.jobRanks())
                .map(this::rankOf)
                .filter(r -> r >= 0)
                .toArray();
        // Every non-member died before this view formed, so a newer death is always a member's.
        if (mine.length == 0)
            throw new IllegalStateException("the store reports deaths outside this communicator: " + d);
        return new RankFailedException(mine, d.reason());
    }

    private int rankOf(int jobRank) {
        for (int i = 0; i < jobRanks.length; i++) if (jobRanks[i] == jobRank) return i;
        return -1;
    }

    /**
     * The survivors' agreement of {@code Communicator.shrink()} (collective among the live ranks of this
     * view): waits until the host has recorded a death among them, then every survivor publishes that it
     * is in and waits for the others of the same failure epoch. A further death while waiting starts it
     * over at the new epoch. Returns the view of the shrunken communicator, which takes over the store
     * connection from this one.
     *
     * @param self this rank in this view's numbering
     * @throws IllegalStateException if no rank of this view was reported failed within the timeout
     * @throws CommTimeoutException  if a survivor did not arrive within the timeout
     */
    public ElasticStore agreeOnSurvivors(int self) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int me = jobRanks[self];
        while (true) {
            root.checkHealthy();
            TcpStore.Deaths d = root.currentDeaths();
            if (d.epoch() <= epoch) {
                if (System.nanoTime() - deadline > 0)
                    throw new IllegalStateException(
                            "shrink(): no rank of this communicator was reported failed within " + timeout.toMillis()
                                    + " ms (elastic mode notices dead processes; a hung one times out instead)");
                sleepBriefly();
                continue;
            }
            int[] survivors = Arrays.stream(jobRanks)
                    .filter(r -> Arrays.stream(d.jobRanks()).noneMatch(x -> x == r))
                    .toArray();
            String base = SHRINK + d.epoch() + "/";
            try {
                root.set(base + me, new byte[] {1});
                for (int r : survivors) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0)
                        throw new CommTimeoutException("shrink(): survivor (job rank " + r + ") to arrive", timeout);
                    root.get(base + r, Duration.ofNanos(left));
                }
            } catch (RankFailedException another) {
                continue; // a survivor died meanwhile: agree again at the newer epoch
            }
            ElasticStore next = new ElasticStore(root, d.epoch(), survivors, timeout);
            ownsRoot = false;
            return next;
        }
    }

    private static void sleepBriefly() {
        try {
            TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.unicomm.api.CommException("interrupted in shrink()", e);
        }
    }

    /** Leaves the job's store, unless a shrunken communicator's view has taken it over. */
    @Override
    public void close() {
        if (ownsRoot) root.close();
    }

    @Override
    public String toString() {
        return "ElasticStore[epoch=" + epoch + ", jobRanks=" + Arrays.toString(jobRanks) + ", " + root + "]";
    }
}
