package dev.unicomm.spi;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import java.util.Optional;

/**
 * A {@link BackendCommunicator} that passes every call to another one: the base of a backend that reuses
 * an existing backend and replaces part of it, typically {@link #rma()} with a {@link ForwardingRma}
 * subclass (an asynchronous put engine), then {@link #barrier()}, {@link #world()} (a {@link ForwardingTeam})
 * and {@link #close()} so that they complete that engine's RMA too (§2.5, §2.6, §3.3 of the semantics).
 */
public class ForwardingBackendCommunicator implements BackendCommunicator {
    private final BackendCommunicator delegate;

    /** @param delegate the communicator every call goes to unless overridden */
    public ForwardingBackendCommunicator(BackendCommunicator delegate) {
        if (delegate == null) throw new IllegalArgumentException("delegate must not be null");
        this.delegate = delegate;
    }

    /** The communicator calls go to. */
    protected final BackendCommunicator delegate() { return delegate; }

    @Override public int rank() { return delegate.rank(); }
    @Override public int size() { return delegate.size(); }
    @Override public SymmetricHeap heap() { return delegate.heap(); }
    @Override public Rma rma() { return delegate.rma(); }
    @Override public Team world() { return delegate.world(); }
    @Override public void barrier() { delegate.barrier(); }
    @Override public boolean acceptsLocal(MemoryKind kind) { return delegate.acceptsLocal(kind); }
    @Override public Optional<Collectives> nativeCollectives() { return delegate.nativeCollectives(); }
    @Override public Optional<MoeBuffer> nativeMoe(MoeConfig config) { return delegate.nativeMoe(config); }
    @Override public Optional<DeviceRuntime> device() { return delegate.device(); }
    @Override public Optional<CallAgreement> callAgreement() { return delegate.callAgreement(); }
    @Override public Optional<Endpoints> endpoints() { return delegate.endpoints(); }
    @Override public void close() { delegate.close(); }
}
