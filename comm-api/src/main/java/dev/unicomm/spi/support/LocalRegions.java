package dev.unicomm.spi.support;

import dev.unicomm.api.Memory;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An endpoint's registered local regions by name ({@link dev.unicomm.api.Endpoint#registerRegion}), with the
 * checks and messages of registering, unregistering and looking one up.
 *
 * @param <R> the backend's record of a region (its memory and its registration)
 */
public final class LocalRegions<R> {
    private final Map<String, R> regions = new ConcurrentHashMap<>();
    private final Function<R, Memory> memory;

    /** @param memory the memory of a region */
    public LocalRegions(Function<R, Memory> memory) {
        this.memory = memory;
    }

    /**
     * Registers the region {@code make} builds (its native registration), unless the name is taken; {@code make}
     * runs under this table's lock, so two registrations of one name cannot both reach the transport.
     *
     * @throws IllegalArgumentException if {@code name} is already registered
     */
    public void add(String name, Supplier<R> make) {
        synchronized (regions) {
            if (regions.containsKey(name))
                throw new IllegalArgumentException("region '" + name + "' is already registered on this endpoint");
            regions.put(name, make.get());
        }
    }

    /**
     * Removes region {@code name} and returns it (the caller releases its registration).
     *
     * @throws IllegalArgumentException if no region of that name is registered
     */
    public R remove(String name) {
        R r;
        synchronized (regions) {
            r = regions.remove(name);
        }
        if (r == null)
            throw new IllegalArgumentException(
                    "no region '" + name + "' is registered on this endpoint; registered: " + names());
        return r;
    }

    /**
     * The region {@code name} that operation {@code op} uses.
     *
     * @throws IllegalArgumentException if the name is null or not registered
     * @throws IllegalStateException if the region's host memory was freed
     */
    public R get(String op, String name) {
        if (name == null) throw new IllegalArgumentException(op + ": region name must not be null");
        R region = regions.get(name);
        if (region == null)
            throw new IllegalArgumentException(
                    op + ": no local region '" + name + "' is registered; registered: " + names());
        Memory m = memory.apply(region);
        if (m.kind().isHost() && !m.segment().scope().isAlive())
            throw new IllegalStateException(
                    op + ": region '" + name + "'s memory was freed (its arena is closed); unregister it");
        return region;
    }

    /** The registered names ({@link dev.unicomm.api.Endpoint#regions()}). */
    public List<String> names() {
        return List.copyOf(regions.keySet());
    }

    /** The registered regions, a live view (for {@code localInfo} and close). */
    public Collection<R> all() {
        return regions.values();
    }

    /** Forgets every region (at close, after their registrations were released). */
    public void clear() {
        regions.clear();
    }
}
