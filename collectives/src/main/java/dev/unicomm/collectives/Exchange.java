package dev.unicomm.collectives;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * Messages between PEs through one symmetric scratch buffer, over the API's put-with-signal.
 *
 * <p>Scratch layout on every PE (W = world size, C = slot payload capacity):
 * <pre>
 *   [0, 8W)                       one 64-bit arrival counter per source PE (signal words, ADD 1 per message)
 *   2 x W slots of (64 + C) bytes  slot[parity][source]: a 64-byte descriptor, then up to C payload bytes
 *   64 + C bytes                   staging: where a descriptor and inline payload are assembled before the put
 * </pre>
 * Every message from PE a to PE b adds 1 to b's counter for a, after its data is visible; b waits for
 * the counter to pass the number of messages it has consumed from a. Slot messages alternate between
 * two slots per source. That is safe because every slot round is all-to-all and a PE sends round
 * k+1 only after it has consumed all of round k: when a sends into a slot again, b has already
 * answered the message that used it before. Flags and data put straight into user buffers count
 * on the same counter but use no slot. A fence before each round keeps one PE's messages to
 * another in order, so a counter value of k means the first k messages have arrived.
 */
final class Exchange {
    static final int HEADER = Descriptor.BYTES;

    private final Rma rma;
    private final SymmetricBuffer scratch;
    private final MemorySegment local;
    private final int me;
    private final int world;
    private final long cap;
    private final long slotBytes;
    private final long slotsBase;
    private final long stagingOff;
    private final long[] sigSent;
    private final long[] sigSeen;
    private final long[] slotSent;
    private final long[] slotSeen;
    /** Host of every world rank, to count the payload bytes this PE sends to other hosts. */
    private final int[] hostOf;

    private long interHostBytes;

    /** Allocates the scratch buffer: collective over the communicator. */
    Exchange(Communicator comm, long slotPayload) {
        this.rma = comm.rma();
        this.me = comm.rank();
        this.world = comm.size();
        this.cap = slotPayload;
        this.slotBytes = align64(HEADER + slotPayload);
        this.slotsBase = align64(8L * world);
        this.stagingOff = slotsBase + 2L * world * slotBytes;
        this.scratch = comm.heap().allocate(scratchBytes(world, slotPayload));
        this.local = scratch.segment();
        local.fill((byte) 0);
        this.sigSent = new long[world];
        this.sigSeen = new long[world];
        this.slotSent = new long[world];
        this.slotSeen = new long[world];
        this.hostOf = new int[world];
        for (int r = 0; r < world; r++) hostOf[r] = comm.topology().hostOf(r);
        // Nobody may put into our counters before they are zeroed.
        comm.barrier();
    }

    /** Symmetric memory one communicator's collectives use per PE. */
    static long scratchBytes(int worldSize, long slotPayload) {
        long slot = align64(HEADER + slotPayload);
        return align64(8L * worldSize) + 2L * worldSize * slot + slot;
    }

    private static long align64(long v) {
        return (v + 63) & ~63L;
    }

    /** Payload capacity of one slot. */
    long capacity() {
        return cap;
    }

    /** Completes this PE's outstanding RMA. */
    void quiet() {
        rma.quiet();
    }

    /** Orders this PE's earlier messages before the next ones (per target). */
    void beginRound() {
        rma.fence();
    }

    /** The staging area's descriptor part. */
    MemorySegment stagingHeader() {
        return local.asSlice(stagingOff, HEADER);
    }

    /** The staging area's payload part, {@code bytes} long (a partial result is built there, then sent). */
    MemorySegment stagingPayload(long bytes) {
        return local.asSlice(stagingOff + HEADER, bytes);
    }

    /** Payload bytes this PE has put to PEs on other hosts (descriptors and flags not counted). */
    long interHostBytes() {
        return interHostBytes;
    }

    private void count(int pe, long bytes) {
        if (hostOf[pe] != hostOf[me]) interHostBytes += bytes;
    }

    /** Copies {@code payload} behind the staged descriptor. */
    void stagePayload(MemorySegment payload) {
        MemorySegment.copy(payload, 0, local, stagingOff + HEADER, payload.byteSize());
    }

    /** Sends the staged descriptor and the first {@code payloadBytes} staged payload bytes into {@code pe}'s slot for us. */
    void sendStaged(int pe, long payloadBytes) {
        long slot = slotOff(slotSent[pe]++ & 1, me);
        rma.putSignal(scratch, slot, scratch, stagingOff, HEADER + payloadBytes, scratch, 8L * me, 1, SignalOp.ADD, pe);
        sigSent[pe]++;
        count(pe, payloadBytes);
    }

    /** Sends {@code bytes} of {@code src[srcOff..]} into the payload part of {@code pe}'s slot for us. */
    void sendSlot(int pe, SymmetricBuffer src, long srcOff, long bytes) {
        long slot = slotOff(slotSent[pe]++ & 1, me);
        rma.putSignal(scratch, slot + HEADER, src, srcOff, bytes, scratch, 8L * me, 1, SignalOp.ADD, pe);
        sigSent[pe]++;
        count(pe, bytes);
    }

    /** Puts {@code bytes} of local {@code src[srcOff..]} into {@code dst[dstOff..]} on {@code pe}, counted as a message. */
    void sendInto(int pe, SymmetricBuffer dst, long dstOff, SymmetricBuffer src, long srcOff, long bytes) {
        rma.putSignal(dst, dstOff, src, srcOff, bytes, scratch, 8L * me, 1, SignalOp.ADD, pe);
        sigSent[pe]++;
        count(pe, bytes);
    }

    /** Puts the first {@code bytes} staged payload bytes into {@code dst[dstOff..]} on {@code pe}, counted as a message. */
    void sendStagedInto(int pe, SymmetricBuffer dst, long dstOff, long bytes) {
        rma.putSignal(dst, dstOff, scratch, stagingOff + HEADER, bytes, scratch, 8L * me, 1, SignalOp.ADD, pe);
        sigSent[pe]++;
        count(pe, bytes);
    }

    /** A message without data: "I am done with this phase". Stores made before it are visible to {@code pe} after it. */
    void sendFlag(int pe) {
        VarHandle.releaseFence();
        rma.putSignal(scratch, 0, scratch, 0, 0, scratch, 8L * me, 1, SignalOp.ADD, pe);
        sigSent[pe]++;
    }

    /** Waits for the next message from {@code pe} (a flag or a put into our buffers). */
    void await(int pe) {
        long want = ++sigSeen[pe];
        rma.signalWaitUntil(scratch, 8L * pe, Cmp.GE, want);
        VarHandle.acquireFence();
    }

    /** Waits for the next slot message from {@code pe}; returns its slot (descriptor, then payload). */
    MemorySegment awaitSlot(int pe) {
        await(pe);
        return local.asSlice(slotOff(slotSeen[pe]++ & 1, pe), slotBytes);
    }

    private long slotOff(long parity, int src) {
        return slotsBase + (parity * world + src) * slotBytes;
    }

    /** Frees the scratch buffer (collective). */
    void close() {
        if (scratch.isOpen()) scratch.close();
    }
}
