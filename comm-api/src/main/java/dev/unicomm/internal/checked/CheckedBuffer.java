package dev.unicomm.internal.checked;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** A user-facing symmetric buffer: remembers its communicator and whether it was freed. */
final class CheckedBuffer implements SymmetricBuffer {
    final CheckedCommunicator owner;
    final SymmetricBuffer raw;
    private volatile boolean open = true;

    CheckedBuffer(CheckedCommunicator owner, SymmetricBuffer raw) {
        this.owner = owner;
        this.raw = raw;
    }

    void ensureOpen(String what) {
        if (!open)
            throw new IllegalStateException(
                    what + ": symmetric buffer at heap offset " + raw.offset() + " was already freed");
    }

    /** This buffer and its communicator open, and {@code pe} one of the communicator's ranks. */
    private void checkPeer(String what, int pe) {
        ensureOpen(what);
        owner.ensureOpen();
        Checks.pe(pe, owner.size());
    }

    @Override
    public long offset() {
        return raw.offset();
    }

    @Override
    public boolean isOpen() {
        return open && owner.isOpen();
    }

    @Override
    public MemoryKind kind() {
        return raw.kind();
    }

    @Override
    public long address() {
        ensureOpen("address");
        return raw.address();
    }

    @Override
    public long byteSize() {
        return raw.byteSize();
    }

    @Override
    public MemorySegment segment() {
        ensureOpen("segment");
        owner.ensureOpen();
        return raw.segment();
    }

    @Override
    public Optional<MemorySegment> peer(int pe) {
        checkPeer("peer", pe);
        return raw.peer(pe);
    }

    @Override
    public Optional<Memory> peerMemory(int pe) {
        checkPeer("peerMemory", pe);
        return raw.peerMemory(pe);
    }

    @Override
    public void close() {
        if (owner.released()) { // shrink() took the heap with the old communicator: a try-with-resources spanning it
            // ends quietly
            open = false;
            return;
        }
        owner.ensureOpen();
        synchronized (this) {
            if (!open)
                throw new IllegalStateException(
                        "symmetric buffer at heap offset " + raw.offset() + " was already freed (double free)");
            open = false;
        }
        owner.forget(this); // freed or not (a failed job), this buffer is no leak of the user's
        CheckedTeam world = owner.worldTeam();
        try {
            owner.calls()
                    .call(
                            world.calls,
                            world.raw,
                            CallLedger.Op.FREE,
                            () -> CallLedger.args(raw.offset(), raw.byteSize()),
                            raw::close);
        } catch (CommAbortedException e) {
            // The job failed (every wait already said so); the communicator's close releases the memory. Stay quiet.
            System.getLogger("dev.unicomm")
                    .log(System.Logger.Level.DEBUG, "buffer not freed collectively: " + e.getMessage());
        }
    }

    /** Marks the buffer freed without a collective free (the communicator is going away). */
    void invalidate() {
        open = false;
    }

    @Override
    public String toString() {
        return "SymmetricBuffer[offset=" + raw.offset() + ", bytes=" + raw.byteSize() + ", " + raw.kind()
                + (open ? "" : ", freed") + "]";
    }
}
