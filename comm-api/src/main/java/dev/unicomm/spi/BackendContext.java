package dev.unicomm.spi;

import dev.unicomm.api.CommConfig;

/**
 * What a backend gets when it opens: the configuration and the rendezvous store, through which
 * ranks exchange what they need (unique ids, QP numbers, segment names).
 *
 * @param config the job configuration (rank, size, timeout, heap size, backend properties)
 * @param store  the job's rendezvous store, already connected
 */
public record BackendContext(CommConfig config, Store store) {
    public int rank() {
        return config.rank();
    }

    public int size() {
        return config.worldSize();
    }
}
