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
    protected final BackendCommunicator delegate() {
        return delegate;
    }

    @Override
    public int rank() {
        return delegate.rank();
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public SymmetricHeap heap() {
        return delegate.heap();
    }

    @Override
    public Rma rma() {
        return delegate.rma();
    }

    @Override
    public Team world() {
        return delegate.world();
    }

    @Override
    public void barrier() {
        delegate.barrier();
    }

    @Override
    public boolean acceptsLocal(MemoryKind kind) {
        return delegate.acceptsLocal(kind);
    }

    @Override
    public Optional<Collectives> nativeCollectives() {
        return delegate.nativeCollectives();
    }

    @Override
    public Optional<MoeBuffer> nativeMoe(MoeConfig config) {
        return delegate.nativeMoe(config);
    }

    @Override
    public Optional<DeviceRuntime> device() {
        return delegate.device();
    }
    /**
     * The delegate's call agreement, handed the delegate's own teams: the teams this communicator hands out
     * may be {@link ForwardingTeam}s, which the delegate does not know, so they are unwrapped on the way.
     * An exchange is a barrier that completes this PE's RMA, and the API runs barriers (and allocations)
     * through it instead of {@link Team#barrier()}: so each exchange first calls
     * {@link #completeBeforeAgreement(Team)}, or this communicator's own RMA engine would be skipped.
     */
    @Override
    public Optional<CallAgreement> callAgreement() {
        return delegate.callAgreement()
                .map(a -> a instanceof PayloadAgreement p
                        ? new PayloadAgreement() {
                            @Override
                            public long[][] exchange(Team team, long[] words) {
                                completeBeforeAgreement(team);
                                return p.exchange(ForwardingTeam.unwrap(team), words);
                            }

                            @Override
                            public boolean coversEveryCall() {
                                return p.coversEveryCall();
                            }

                            @Override
                            public long payloadCapacity() {
                                return p.payloadCapacity();
                            }

                            @Override
                            public void exchange(
                                    Team team,
                                    long[] words,
                                    long[][] all,
                                    java.lang.foreign.MemorySegment payload,
                                    long bytes,
                                    java.lang.foreign.MemorySegment[] inputs) {
                                completeBeforeAgreement(team);
                                p.exchange(ForwardingTeam.unwrap(team), words, all, payload, bytes, inputs);
                            }
                        }
                        : new CallAgreement() {
                            @Override
                            public long[][] exchange(Team team, long[] words) {
                                completeBeforeAgreement(team);
                                return a.exchange(ForwardingTeam.unwrap(team), words);
                            }

                            @Override
                            public boolean coversEveryCall() {
                                return a.coversEveryCall();
                            }
                        });
    }

    @Override
    public Optional<Endpoints> endpoints() {
        return delegate.endpoints();
    }
    /**
     * What a call-agreement exchange over {@code team} (one of the teams this communicator handed out)
     * completes first: by default this communicator's {@link #rma()}'s outstanding operations ({@code quiet}).
     */
    protected void completeBeforeAgreement(Team team) {
        rma().quiet();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
