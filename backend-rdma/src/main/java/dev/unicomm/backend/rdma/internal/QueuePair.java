package dev.unicomm.backend.rdma.internal;

import java.util.concurrent.ThreadLocalRandom;

/** One RC queue pair. Posting is thread-safe (the provider locks); the owner serializes close. */
public final class QueuePair implements AutoCloseable {
    public static final int OP_WRITE = 0;
    public static final int OP_WRITE_IMM = 1;
    public static final int OP_READ = 2;
    public static final int ATOMIC_FETCH_ADD = 0;
    public static final int ATOMIC_COMPARE_SWAP = 1;
    /** ACK timeout exponent: 4.096 µs × 2^15 ≈ 134 ms per try (room for a slow, emulated peer); {@code unicomm.rdma.ack_timeout}. */
    public static final int ACK_TIMEOUT = 15;
    /**
     * Transport retries before RETRY_EXC_ERR: a vanished peer fails in about a second. Not 7: soft-RoCE
     * (rdma_rxe) treats a retry count of 7 as "retry forever", which would turn a dead peer into a hang.
     */
    static final int RETRY_COUNT = 6;

    private final long handle;
    private final int qpn;
    private final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
    private boolean open = true;

    public QueuePair(DeviceContext dev, CompletionQueue cq, int sendDepth, int recvDepth) {
        this.handle = Verbs.checkHandle(
                VerbsShim.ucv_qp_create(dev.handle(), cq.handle(), sendDepth, recvDepth),
                "ibv_create_qp(RC, " + sendDepth + " send / " + recvDepth + " receive WRs)");
        this.qpn = VerbsShim.ucv_qp_num(handle);
    }

    public int qpn() {
        return qpn;
    }

    public int psn() {
        return psn;
    }

    /**
     * RESET → INIT → RTR → RTS towards {@code remote}. A peer GID of the other address family is refused
     * before the native call; a peer the kernel cannot resolve (no route, no ARP answer) fails here with
     * both addresses named.
     */
    public void connect(LocalAddress local, int mtu, ConnectionInfo.Qp remote, ConnectionInfo peer, int rdAtomic) {
        connect(local, mtu, remote, peer, rdAtomic, ACK_TIMEOUT);
    }

    /** {@link #connect(LocalAddress, int, ConnectionInfo.Qp, ConnectionInfo, int)} with ACK timeout exponent {@code ackTimeout} (1..31). */
    public void connect(
            LocalAddress local, int mtu, ConnectionInfo.Qp remote, ConnectionInfo peer, int rdAtomic, int ackTimeout) {
        checkSameFamily(local, peer);
        int gidIndex = local.ethernet() || local.gidIndex() >= 0 ? local.gidIndex() : -1;
        try {
            Verbs.check(
                    VerbsShim.ucv_qp_connect(
                            handle,
                            local.port(),
                            gidIndex,
                            mtu,
                            remote.qpn(),
                            remote.psn(),
                            peer.lid(),
                            peer.gid().hi(),
                            peer.gid().lo(),
                            psn,
                            rdAtomic,
                            ackTimeout,
                            RETRY_COUNT),
                    "ibv_modify_qp(INIT/RTR/RTS)");
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "cannot connect " + local.device() + " (GID index " + local.gidIndex() + " "
                            + local.gid().display() + ") to the peer's " + peer.device() + " (GID "
                            + peer.gid().display() + "): "
                            + e.getMessage()
                            + (local.ethernet()
                                    ? "; is the peer's address routable from this host (ip route get, ARP)?"
                                    : ""),
                    e);
        }
    }

    /** RoCE: an IPv4-mapped GID talks only to IPv4-mapped GIDs, an IPv6 one only to IPv6 (no hang on a packet nobody can route). */
    static void checkSameFamily(LocalAddress local, ConnectionInfo peer) {
        if (!local.ethernet() || local.gid().isIpv4Mapped() == peer.gid().isIpv4Mapped()) return;
        throw new IllegalArgumentException(
                "GID families differ: " + local.device() + " uses GID index " + local.gidIndex() + " "
                        + local.gid().display() + " (" + family(local.gid()) + "), the peer's " + peer.device()
                        + " uses " + peer.gid().display()
                        + " (" + family(peer.gid())
                        + "); choose GID indexes of one family on both hosts (unicomm.rdma.gid_index / EndpointOptions.withGidIndex)");
    }

    private static String family(Gid g) {
        return g.isIpv4Mapped() ? "IPv4" : "IPv6";
    }

    /** Posts {@code count} chained RDMA ops (only the last signaled); returns the shim's code (< 0 on error). */
    public int postRdma(
            int op,
            long wrId,
            int count,
            long[] localAddrs,
            int lkey,
            long[] remoteAddrs,
            int rkey,
            int length,
            int imm) {
        return VerbsShim.ucv_post_rdma(handle, op, wrId, count, localAddrs, lkey, remoteAddrs, rkey, length, imm, 1);
    }

    public int postSend(long wrId, long addr, int len, int lkey) {
        return VerbsShim.ucv_post_send(handle, wrId, addr, len, lkey);
    }

    public int postRecv(long wrId, long addr, int len, int lkey) {
        return VerbsShim.ucv_post_recv(handle, wrId, addr, len, lkey);
    }

    public int postAtomic(
            long wrId, long localAddr, int lkey, long remoteAddr, int rkey, int op, long compareAdd, long swap) {
        return VerbsShim.ucv_post_atomic(handle, wrId, localAddr, lkey, remoteAddr, rkey, op, compareAdd, swap);
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        VerbsShim.ucv_qp_destroy(handle);
    }
}
