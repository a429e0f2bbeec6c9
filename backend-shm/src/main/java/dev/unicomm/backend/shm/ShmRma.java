package dev.unicomm.backend.shm;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * RMA over shared mappings: every PE's heap is mapped in this process, so a put is one
 * {@link MemorySegment#copy} into the peer's mapping, a get one copy out of it, and atomics are CPU
 * atomics on the peer's word.
 *
 * <p>Guarantees (stronger than the API requires, because every operation completes before it returns):
 * <ul>
 *   <li>{@code put}/{@code putNbi}/{@code get}/{@code getNbi} have completed locally and remotely when
 *       they return; {@link #quiet()} and {@link #fence()} are a full fence
 *       ({@link VarHandle#fullFence()}), which makes this PE's earlier plain stores visible to every
 *       PE before its later stores.</li>
 *   <li>Put-with-signal copies the data, then updates the signal with release semantics
 *       ({@code SET}: release store; {@code ADD}: atomic add), so a PE that observes the signal with
 *       {@link #signalWaitUntil}/{@link #signalFetch} (acquire loads) also observes the data.</li>
 *   <li>Atomics are sequentially consistent read-modify-writes ({@code lock}-prefixed instructions)
 *       on the 64-bit word, atomic against other atomics and signal updates from any PE.</li>
 *   <li>Plain puts to a PE are <em>not</em> ordered with respect to another PE's loads unless a
 *       signal, a fence/quiet plus a flag, or a barrier orders them: use those, as in OpenSHMEM.</li>
 * </ul>
 */
final class ShmRma implements Rma {
    private final ShmCommunicator comm;
    private final MemorySegment[] heaps;

    ShmRma(ShmCommunicator comm) {
        this.comm = comm;
        this.heaps = comm.heaps();
    }

    @Override
    public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        MemorySegment.copy(src.segment(), srcOffset, heaps[pe], dst.offset() + dstOffset, bytes);
    }

    @Override
    public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        MemorySegment.copy(heaps[pe], src.offset() + srcOffset, dst.segment(), dstOffset, bytes);
    }

    @Override
    public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
        put(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
        get(dst, dstOffset, src, srcOffset, bytes, pe);
    }

    @Override
    public void putSignal(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe) {
        MemorySegment.copy(src.segment(), srcOffset, heaps[pe], dst.offset() + dstOffset, bytes);
        long word = signal.offset() + signalOffset;
        if (op == SignalOp.SET) Words.setRelease(heaps[pe], word, value);
        else Words.getAndAdd(heaps[pe], word, value);
    }

    @Override
    public void putSignalNbi(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe) {
        putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
    }

    @Override
    public long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value) {
        MemorySegment mine = heaps[comm.rank()];
        long word = signal.offset() + signalOffset;
        long v;
        Waiter.Wait w = null;
        Supplier<String> what = null; // made once per wait, not per poll: a long wait must not fill the heap
        for (int polls = 1; !cmp.test(v = Words.getAcquire(mine, word), value); polls++) {
            if (polls <= comm.waiter().freeSpins) {
                Thread.onSpinWait();
            } else {
                if (what == null)
                    what = () -> "signal wait until the word at heap offset " + word + " " + cmp + " " + value;
                w = comm.waiter().idle(w, what);
            }
        }
        return v;
    }

    @Override
    public long signalFetch(SymmetricBuffer signal, long signalOffset) {
        return Words.getAcquire(heaps[comm.rank()], signal.offset() + signalOffset);
    }

    @Override
    public void quiet() {
        VarHandle.fullFence();
    }

    @Override
    public void fence() {
        VarHandle.fullFence();
    }

    @Override
    public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
        return Words.getVolatile(heaps[pe], buf.offset() + offset);
    }

    @Override
    public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
        Words.setVolatile(heaps[pe], buf.offset() + offset, value);
    }

    @Override
    public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        return Words.getAndAdd(heaps[pe], buf.offset() + offset, delta);
    }

    @Override
    public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
        Words.getAndAdd(heaps[pe], buf.offset() + offset, delta);
    }

    @Override
    public long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe) {
        return Words.compareAndExchange(heaps[pe], buf.offset() + offset, expected, desired);
    }

    @Override
    public long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe) {
        return Words.getAndSet(heaps[pe], buf.offset() + offset, value);
    }

    // on(Stream): the API's default for host backends (each operation first waits for the stream's earlier work).
}
