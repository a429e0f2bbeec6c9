package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.ExpertMask;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One MoE buffer's active-rank mask (docs/moe.md, "Elastic GPU"). The kernels read it from device
 * memory at every use ({@code ucn_moe_args.active}: int32 [R] flags, then an "any inactive" flag), so
 * it is data, not a kernel argument: a CUDA graph replays with the mask of the moment. It is written
 * with stream-ordered memsets (nonzero = active), so a change lands between two queued operations
 * and needs no pinned staging that a later change could overwrite too early.
 *
 * <p>The host-sequenced dispatches write each token's drops ({@code droppedPerToken}) straight into
 * pinned host memory, one array per completion slot (normal; the two low-latency generations); the
 * stream-ordered ones into a device array. Ranks only leave the mask: a rank that was inactive
 * missed operations, so its arrival counters are behind the others' and it cannot rejoin this buffer.
 */
final class MoeActiveMask {
    /** Where the dispatch drop counts go: the normal dispatch, the two low-latency generations. */
    static final int NORMAL = 0, LL_EVEN = 1, LL_ODD = 2;

    private static final int ARRAYS = 3;

    private final int ranks, maxTokens;
    private final long device, droppedDevice, droppedPinned;
    private final MemorySegment dropped;
    private final boolean[] live;
    private final long
            readBack; // pinned int32 [R]: the kernels zero a lost rank's word here too (ucn_moe_args.host_mask)
    private final MemorySegment readBackView;
    private int inactive;
    private long epoch;

    MoeActiveMask(MoeDeviceMemory memory, int ranks, int maxTokens, long stream) {
        this.ranks = ranks;
        this.maxTokens = maxTokens;
        this.device = memory.alloc(4L * (ranks + 1));
        this.droppedDevice = memory.alloc(4L * Math.max(1, maxTokens));
        this.droppedPinned = NvOps.pinnedAlloc(4L * ARRAYS * Math.max(1, maxTokens));
        this.dropped = MemorySegment.ofAddress(droppedPinned)
                .reinterpret(4L * ARRAYS * Math.max(1, maxTokens))
                .fill((byte) 0);
        this.readBack = NvOps.pinnedAlloc(4L * ranks);
        this.readBackView =
                MemorySegment.ofAddress(readBack).reinterpret(4L * ranks).fill((byte) 1);
        this.live = new boolean[ranks];
        Arrays.fill(live, true);
        NvOps.fillAsync(device, 1, 4L * ranks, stream); // every rank active (0x01010101: nonzero)
        NvOps.fillAsync(device + 4L * ranks, 0, 4, stream); // nobody inactive
    }

    /** Device address of the mask (the kernels' {@code active}). */
    long device() {
        return device;
    }

    /** Whether a rank is inactive (the host's view, which every call's kernels share). */
    boolean anyInactive() {
        return inactive > 0;
    }

    boolean live(int rank) {
        return live[rank];
    }

    /** Bumped by every change: handles and results made under an older mask are not mixed with a newer one. */
    long epoch() {
        return epoch;
    }

    ExpertMask asExpertMask() {
        int[] r = new int[ranks - inactive];
        for (int i = 0, j = 0; i < ranks; i++) if (live[i]) r[j++] = i;
        return new ExpertMask(ranks, r);
    }

    /**
     * Queues the change on {@code stream} (the stream the buffer's operations run on, so it lands
     * between the operations queued before and after).
     *
     * @throws IllegalArgumentException if the mask re-activates a rank (see the class comment)
     */
    void set(ExpertMask mask, long stream) {
        for (int r = 0; r < ranks; r++)
            if (!live[r] && mask.rankActive(r))
                throw new IllegalArgumentException(
                        "mask " + mask + " re-activates rank " + r + ", which is inactive on this buffer: it missed "
                                + "operations, so its arrival counters are behind the others'; ranks only leave an open NVSHMEM MoE buffer (open a new "
                                + "buffer to bring it back)");
        boolean changed = false;
        for (int r = 0; r < ranks; r++) {
            if (live[r] && !mask.rankActive(r)) {
                live[r] = false;
                inactive++;
                changed = true;
                NvOps.fillAsync(device + 4L * r, 0, 4, stream);
            }
        }
        if (!changed) return;
        NvOps.fillAsync(device + 4L * ranks, 1, 4, stream);
        epoch++;
    }

    /** Where dispatch {@code which} (NORMAL, LL_EVEN, LL_ODD) writes its drops: pinned host memory the host reads after it. */
    long droppedHost(int which) {
        return droppedPinned + 4L * which * maxTokens;
    }

    /** Where the stream-ordered dispatches write their drops (device memory). */
    long droppedDevice() {
        return droppedDevice;
    }

    /**
     * Copies dispatch {@code which}'s drops of {@code tokens} tokens into {@code into} (after the
     * kernel is done); with every rank active the kernels write nothing and this is all zeros.
     */
    int[] dropped(int which, int tokens, int[] into) {
        if (!anyInactive()) {
            Arrays.fill(into, 0);
            return into;
        }
        MemorySegment.copy(dropped, ValueLayout.JAVA_INT, 4L * which * maxTokens, into, 0, tokens);
        return into;
    }

    /** Pinned mirror the kernels zero a lost rank's word in (ucn_moe_args.host_mask). */
    long hostMirror() {
        return readBack;
    }

    /**
     * Takes the ranks the kernels found gone (elastic buffers), from the pinned mirror they wrote before
     * their error record: no copy, no wait for the stream (a later operation may already be queued).
     * No epoch change: the kernels skip the lost ranks' routes themselves, so results and handles of the
     * operation that found them stay usable.
     *
     * @return the ranks newly found inactive
     */
    int[] refresh() {
        int[] lost = new int[ranks];
        int n = 0;
        for (int r = 0; r < ranks; r++) {
            if (live[r] && readBackView.getAtIndex(ValueLayout.JAVA_INT, r) == 0) {
                live[r] = false;
                inactive++;
                lost[n++] = r;
            }
        }
        return Arrays.copyOf(lost, n);
    }

    void free() {
        NvOps.pinnedFree(droppedPinned);
        NvOps.pinnedFree(readBack);
    }
}
