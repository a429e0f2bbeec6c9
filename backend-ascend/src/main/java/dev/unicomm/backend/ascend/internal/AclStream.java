package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.Stream;

/** An ACL stream ({@code aclrtStream}); owned ones are destroyed on close, wrapped ones only forgotten. */
final class AclStream implements Stream {
    private final AscendCommunicator comm;
    private final long handle;
    private final boolean owned;
    private volatile boolean open = true;

    AclStream(AscendCommunicator comm, long handle, boolean owned) {
        this.comm = comm;
        this.handle = handle;
        this.owned = owned;
    }

    AscendCommunicator owner() {
        return comm;
    }

    @Override
    public long handle() {
        return handle;
    }

    /** Waits for the stream's work with the communicator's timeout and abort detection. */
    @Override
    public void synchronize() {
        if (!open) throw new IllegalStateException("stream 0x" + Long.toHexString(handle) + " is closed");
        comm.await(handle, "stream 0x" + Long.toHexString(handle) + " synchronize");
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        if (!open) return;
        open = false;
        comm.forget(this);
        if (owned) {
            try {
                comm.await(handle, "stream close");
            } finally {
                AscendNatives.destroyStream(handle);
            }
        }
    }

    @Override
    public String toString() {
        return "AclStream[0x" + Long.toHexString(handle) + (owned ? ", owned" : ", wrapped") + "]";
    }
}
