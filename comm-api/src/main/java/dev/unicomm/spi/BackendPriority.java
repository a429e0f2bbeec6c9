package dev.unicomm.spi;

/**
 * The one rule behind every backend's {@link CommBackendProvider#priority()}, used when the user
 * names no backend: <em>the backend closest to the memory a model computes on wins</em>.
 * <ol>
 *   <li>{@link #DEVICE}: accelerator symmetric memory (NVSHMEM on NVIDIA GPUs, aclshmem on Ascend
 *       NPUs). On a GPU node with a working NIC this still wins over verbs: NVSHMEM drives the same
 *       NIC itself (IBRC/IBGDA) and adds NVLink within the node and device-initiated transfers,
 *       which is what a user of such a node expects.</li>
 *   <li>{@link #NETWORK}: RDMA verbs on host memory, for nodes without a usable accelerator.</li>
 *   <li>{@link #HOST}: shared memory between processes of one host, the fallback that runs anywhere.</li>
 * </ol>
 * Ties (two device backends on one node) go to the name, alphabetically; name a backend with
 * {@code UNICOMM_BACKEND} to choose. Every rank must end up with the same backend: connect compares
 * each rank's choice with rank 0's through the rendezvous store and, on a mismatch, fails every rank
 * at once with a message naming both choices (checked after the rendezvous by the validating layer).
 */
public final class BackendPriority {
    private BackendPriority() {}

    /** Accelerator symmetric memory: NVSHMEM, aclshmem. */
    public static final int DEVICE = 300;
    /** RDMA verbs over host memory. */
    public static final int NETWORK = 200;
    /** Shared memory on one host (runs anywhere). */
    public static final int HOST = 10;
}
