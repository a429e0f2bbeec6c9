package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Stream;

/**
 * A CUDA stream of this PE's device: owned (made by {@code createStream}, destroyed by
 * {@link #close()}) or wrapped (a framework's {@code cudaStream_t}, never destroyed by us).
 * {@link #synchronize()} waits at most the communicator's timeout.
 */
final class NvshmemStream implements Stream {
    private final NvshmemCommunicator c;
    private final long handle;
    private final boolean owned;
    private volatile boolean open = true;

    NvshmemStream(NvshmemCommunicator c, long handle, boolean owned) {
        this.c = c;
        this.handle = handle;
        this.owned = owned;
    }

    NvshmemCommunicator owner() {
        return c;
    }

    /** The handle, or IllegalStateException if the stream was closed. */
    long liveHandle() {
        if (!open) throw new IllegalStateException("stream 0x" + Long.toHexString(handle) + " is closed");
        return handle;
    }

    @Override
    public long handle() {
        return handle;
    }

    @Override
    public void synchronize() {
        c.ensureOpen();
        c.await(liveHandle(), "stream synchronize");
    }

    @Override
    public boolean isOpen() {
        return open && c.isOpen();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        synchronized (c.streams) {
            c.streams.remove(this);
        }
        if (owned && c.isOpen()) {
            try {
                c.await(handle, "closing stream");
            } finally {
                NvOps.streamDestroy(handle);
            }
        }
    }

    @Override
    public String toString() {
        return "NvshmemStream[0x" + Long.toHexString(handle) + (owned ? ", owned" : ", wrapped")
                + (open ? "" : ", closed") + "]";
    }
}
