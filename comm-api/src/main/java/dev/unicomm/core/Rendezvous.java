package dev.unicomm.core;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.spi.LocalStore;
import dev.unicomm.spi.Store;

/** Connects this process to the job's rendezvous store. */
public final class Rendezvous {
    private Rendezvous() {}

    /** A single-PE job gets an in-process store; larger jobs connect to rank 0's TCP store. */
    public static Store connect(CommConfig config) {
        if (config.worldSize() == 1) return new LocalStore(config.timeout());
        throw new CommException("multi-rank jobs need the TCP rendezvous store (not built yet)");
    }
}
