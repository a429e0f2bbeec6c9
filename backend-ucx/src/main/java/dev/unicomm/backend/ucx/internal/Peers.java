package dev.unicomm.backend.ucx.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * One UCP endpoint per PE (this PE's own included: RMA to itself goes through UCX too, so its atomics
 * stay atomic with the peers') and the unpacked key of each PE's heap. Endpoints use the PEER error
 * mode: a dead peer fails its requests instead of aborting the process.
 */
final class Peers {
    private final UcxWorker w;
    private final MemorySegment[] eps;
    private final MemorySegment[] rkeys;
    private final long[] bases;
    private final byte[] failed; // status from the error handler, 0 while the PE's endpoint is fine
    private final long errorsId;

    private Peers(UcxWorker w, int size) {
        this.w = w;
        this.eps = new MemorySegment[size];
        this.rkeys = new MemorySegment[size];
        this.bases = new long[size];
        this.failed = new byte[size];
        this.errorsId = EndpointErrors.register(this::failed);
    }

    private synchronized void failed(int pe, byte status) {
        if (pe >= 0 && pe < failed.length && failed[pe] == 0) failed[pe] = status;
    }

    /** The status UCX reported for PE {@code pe}'s endpoint, or 0 (UCS_OK) while it works. */
    synchronized byte failure(int pe) {
        return failed[pe];
    }

    /** Connects to every PE; on failure releases what it made. */
    static Peers connect(UcxWorker w, PeerInfo[] infos) {
        Peers p = new Peers(w, infos.length);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            for (int pe = 0; pe < infos.length; pe++) {
                MemorySegment params = EndpointErrors.endpointParams(a, infos[pe].workerAddress(), p.errorsId, pe);
                Ucx.check(w.ucp, w.ucp.epCreate(w.worker, params, out), "ucp_ep_create (to PE " + pe + ")");
                p.eps[pe] = out.get(ValueLayout.ADDRESS, 0);
                Ucx.check(
                        w.ucp,
                        w.ucp.rkeyUnpack(p.eps[pe], a.allocateFrom(ValueLayout.JAVA_BYTE, infos[pe].rkey()), out),
                        "ucp_ep_rkey_unpack (heap of PE " + pe + ")");
                p.rkeys[pe] = out.get(ValueLayout.ADDRESS, 0);
                p.bases[pe] = infos[pe].heapBase();
            }
            return p;
        } catch (RuntimeException e) {
            p.close(true, Duration.ofSeconds(1), () -> {});
            p.forget();
            throw e;
        }
    }

    MemorySegment ep(int pe) {
        return eps[pe];
    }

    /** Prints, per endpoint, which transport carries each lane (to stderr, as UCX does). */
    void printInfo(int rank) {
        for (int pe = 0; pe < eps.length; pe++) {
            System.err.println("[ucx] PE " + rank + " -> PE " + pe + ":");
            System.err.flush();
            w.ucp.printEpInfo(eps[pe]);
        }
    }

    MemorySegment rkey(int pe) {
        return rkeys[pe];
    }

    /** Remote virtual address of {@code offset} in PE {@code pe}'s heap. */
    long address(int pe, long offset) {
        return bases[pe] + offset;
    }

    /**
     * Destroys the keys and closes the endpoints: flushing (the peers progress until everyone passed the
     * next store barrier) or, when {@code force} (a failed job), without asking the peer.
     */
    void close(boolean force, Duration timeout, Runnable health) {
        for (int pe = 0; pe < rkeys.length; pe++) {
            if (rkeys[pe] != null) w.ucp.rkeyDestroy(rkeys[pe]);
            rkeys[pe] = null;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment param = a.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
            if (force) {
                param.set(ValueLayout.JAVA_INT, UcpAbi.REQ_OP_ATTR_MASK, UcpAbi.OP_ATTR_FIELD_FLAGS);
                param.set(ValueLayout.JAVA_INT, UcpAbi.REQ_FLAGS, UcpAbi.EP_CLOSE_FLAG_FORCE);
            }
            RuntimeException first = null;
            for (int pe = 0; pe < eps.length; pe++) {
                if (eps[pe] == null) continue;
                try {
                    w.await(w.ucp.epClose(eps[pe], param), "ucp_ep_close_nbx", pe, timeout, health);
                } catch (RuntimeException e) {
                    if (first == null) first = e; // the worker's destroy releases what is left
                }
                eps[pe] = null;
            }
            if (first != null && !force) throw first;
        }
    }

    /** Stops routing error callbacks here; call after the worker is destroyed (it may still report while it lives). */
    void forget() {
        EndpointErrors.unregister(errorsId);
    }
}
