package dev.unicomm.spi;

import dev.unicomm.api.Stream;
import dev.unicomm.api.Team;

/**
 * A {@link Team} that passes every call to another one: the base of a backend that reuses an existing
 * backend's teams and changes part of them (a barrier that first drains its own put engine, a tracing
 * layer, a test double). Teams it splits off are passed through {@link #wrap(Team)}, so a subclass can
 * give them the same change.
 */
public class ForwardingTeam implements Team {
    private final Team delegate;

    /** @param delegate the team every call goes to unless overridden */
    public ForwardingTeam(Team delegate) {
        if (delegate == null) throw new IllegalArgumentException("delegate must not be null");
        this.delegate = delegate;
    }

    /** The team calls go to. */
    protected final Team delegate() {
        return delegate;
    }

    /** The innermost team behind {@code t}, through any number of forwarding layers ({@code t} itself if it is not one). */
    public static Team unwrap(Team t) {
        Team x = t;
        while (x instanceof ForwardingTeam f) x = f.delegate;
        return x;
    }

    /** What a team split from this one becomes; the default returns it unchanged. */
    protected Team wrap(Team child) {
        return child;
    }

    @Override
    public int rank() {
        return delegate.rank();
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public int worldRank(int teamRank) {
        return delegate.worldRank(teamRank);
    }

    @Override
    public int translate(int teamRank, Team dest) {
        return delegate.translate(teamRank, dest);
    }

    @Override
    public Team split(int start, int stride, int size) {
        return wrap(delegate.split(start, stride, size));
    }

    @Override
    public Split2d split2d(int xRange) {
        Split2d s = delegate.split2d(xRange);
        return new Split2d(wrap(s.x()), wrap(s.y()));
    }

    @Override
    public void barrier() {
        delegate.barrier();
    }

    @Override
    public void barrier(Stream stream) {
        delegate.barrier(stream);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
