package dev.unicomm.api;

import java.lang.foreign.MemorySegment;

/**
 * One-sided remote memory access with OpenSHMEM 1.5 semantics (NVSHMEM / Ascend SHMEM naming).
 *
 * <p>PE numbers are world ranks (use {@link Team#worldRank(int)} to translate). Remote side: a
 * symmetric buffer plus an offset into it; local side: any {@link Memory} the backend accepts
 * (host segments always for host heaps; device memory on device backends).
 *
 * <p>Completion and ordering:
 * <ul>
 *   <li>Blocking {@code put} returns when the local source may be reused; the data is delivered
 *       to the target by the next {@link #quiet()} (or barrier). Blocking {@code get} returns
 *       with the data in the local destination.</li>
 *   <li>{@code putNbi}/{@code getNbi} may return before the local buffer is reusable / filled:
 *       {@link #quiet()} completes all outstanding operations of this PE.</li>
 *   <li>{@link #fence()} orders puts, atomics and signals to each PE: those issued before the
 *       fence are delivered before those issued after it, to the same PE.</li>
 *   <li>Put-with-signal: the signal update becomes visible only after the data is.</li>
 *   <li>Atomics are 64-bit, on 8-byte-aligned offsets, atomic with respect to other atomics and
 *       signal updates on the same word.</li>
 * </ul>
 * Waits use the communicator's timeout and throw {@link CommTimeoutException} or
 * {@link CommAbortedException}, never hang.
 */
public interface Rma {

    /** Copies {@code bytes} from local {@code src[srcOffset..]} to {@code dst[dstOffset..]} on {@code pe}. */
    void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe);

    /** Copies {@code bytes} from {@code src[srcOffset..]} on {@code pe} to local {@code dst[dstOffset..]}. */
    void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe);

    /** Non-blocking put: source reusable and data delivered after {@link #quiet()}. */
    void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe);

    /** Non-blocking get: destination filled after {@link #quiet()}. */
    void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe);

    /**
     * Put, then update the 64-bit signal word {@code signal[signalOffset]} on {@code pe} with
     * {@code op}/{@code value} once the data is visible there.
     */
    void putSignal(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe);

    /** Non-blocking {@link #putSignal}: the source is reusable after {@link #quiet()}. */
    void putSignalNbi(
            SymmetricBuffer dst,
            long dstOffset,
            Memory src,
            long srcOffset,
            long bytes,
            SymmetricBuffer signal,
            long signalOffset,
            long value,
            SignalOp op,
            int pe);

    /**
     * Waits until the local signal word {@code signal[signalOffset]} satisfies {@code cmp value};
     * returns the word's value that satisfied it.
     */
    long signalWaitUntil(SymmetricBuffer signal, long signalOffset, Cmp cmp, long value);

    /** Reads the local signal word atomically. */
    long signalFetch(SymmetricBuffer signal, long signalOffset);

    /** Completes every outstanding put, get, atomic and signal this PE issued (to all PEs). */
    void quiet();

    /** Orders this PE's puts, atomics and signals per target PE (see the class comment). */
    void fence();

    /** Atomically reads the 64-bit word at {@code buf[offset]} on {@code pe}. */
    long atomicFetch(SymmetricBuffer buf, long offset, int pe);

    /** Atomically writes the 64-bit word. */
    void atomicSet(SymmetricBuffer buf, long offset, long value, int pe);

    /** Atomically adds {@code delta}; returns the previous value. */
    long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe);

    /** Atomically adds {@code delta} (no result: may be cheaper). */
    void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe);

    /** Atomically replaces {@code expected} with {@code desired}; returns the previous value. */
    long atomicCompareSwap(SymmetricBuffer buf, long offset, long expected, long desired, int pe);

    /** Atomically replaces the word with {@code value}; returns the previous value. */
    long atomicSwap(SymmetricBuffer buf, long offset, long value, int pe);

    /**
     * A view whose operations are issued on {@code stream} and ordered with its other work
     * (NVSHMEM's {@code *_on_stream}); returns before they run. On a host backend a stream is
     * program order, so this view behaves like this one.
     *
     * <p>The default suits host backends: each operation of the view waits for the stream's earlier
     * work and then runs through this {@code Rma}. Device backends override it.
     *
     * @throws UnsupportedCapabilityException if the backend has no streams and {@code stream} is a device stream
     */
    default Rma on(Stream stream) {
        return new HostStreamRma(this, stream);
    }

    /** Convenience: puts the whole of {@code src} at {@code dst[dstOffset..]} on {@code pe}. */
    default void put(SymmetricBuffer dst, long dstOffset, MemorySegment src, int pe) {
        put(dst, dstOffset, Memory.of(src), 0, src.byteSize(), pe);
    }

    /** Convenience: fills the whole of {@code dst} from {@code src[srcOffset..]} on {@code pe}. */
    default void get(MemorySegment dst, SymmetricBuffer src, long srcOffset, int pe) {
        get(Memory.of(dst), 0, src, srcOffset, dst.byteSize(), pe);
    }
}
