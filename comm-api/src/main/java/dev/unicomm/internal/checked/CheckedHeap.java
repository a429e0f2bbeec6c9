package dev.unicomm.internal.checked;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;

/** Validates allocation arguments and wraps the backend's buffers. */
final class CheckedHeap implements SymmetricHeap {
    private final CheckedCommunicator owner;
    private final SymmetricHeap raw;

    CheckedHeap(CheckedCommunicator owner, SymmetricHeap raw) {
        this.owner = owner;
        this.raw = raw;
    }

    @Override
    public SymmetricBuffer allocate(long bytes, long alignment) {
        owner.ensureOpen();
        CheckedTeam world = owner.worldTeam();
        return owner.calls()
                .call(
                        world.calls,
                        world.raw,
                        CallLedger.Op.ALLOCATE,
                        () -> {
                            Checks.nonNegative("allocation size", bytes);
                            Checks.powerOfTwo("alignment", alignment);
                            return CallLedger.args(bytes, alignment);
                        },
                        () -> {
                            CheckedBuffer b = new CheckedBuffer(owner, raw.allocate(bytes, alignment));
                            owner.remember(b);
                            return b;
                        });
    }

    @Override
    public long capacity() {
        return raw.capacity();
    }

    @Override
    public long used() {
        return raw.used();
    }

    @Override
    public MemoryKind kind() {
        return raw.kind();
    }
}
