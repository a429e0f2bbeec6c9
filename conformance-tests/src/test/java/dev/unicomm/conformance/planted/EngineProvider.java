package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.conformance.broken.ShmUnderAnotherName;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.CallAgreement;
import dev.unicomm.spi.ForwardingBackendCommunicator;
import dev.unicomm.spi.ForwardingSymmetricHeap;
import dev.unicomm.spi.ForwardingTeam;
import java.util.Optional;
import java.util.function.Function;

/**
 * A test-only backend: the real shm backend behind a {@link SlowPutEngine} (or a subclass with one
 * planted fault), wired in with the SPI's forwarding bases the way an out-of-tree vendor would: the
 * barrier, every team's barrier, allocation and close complete the engine's queue through its hooks.
 */
abstract class EngineProvider extends ShmUnderAnotherName {
    private final Function<Rma, SlowPutEngine> engine;

    EngineProvider(String name, Function<Rma, SlowPutEngine> engine) {
        super(name);
        this.engine = engine;
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        BackendCommunicator c = real.open(context);
        SlowPutEngine e = engine.apply(c.rma());
        LiveBuffers live = new LiveBuffers();
        e.useLiveBuffers(live);
        SymmetricHeap heap = new ForwardingSymmetricHeap(c.heap()) {
            @Override
            public SymmetricBuffer allocate(long bytes, long alignment) {
                e.completeBeforeReuse();
                SymmetricBuffer b = delegate().allocate(bytes, alignment);
                live.add(b);
                return b;
            }
        };
        Team world = new EngineTeam(c.world(), e, true);
        return new ForwardingBackendCommunicator(c) {
            @Override
            public SymmetricHeap heap() {
                return heap;
            }

            @Override
            public Rma rma() {
                return e;
            }

            @Override
            public Team world() {
                return world;
            }
            // no call agreement: with one, the API would run barriers and allocations as agreement exchanges,
            // and the faults planted in team barriers and allocation would never be reached
            @Override
            public Optional<CallAgreement> callAgreement() {
                return Optional.empty();
            }

            @Override
            public void barrier() {
                e.completeForBarrier();
                delegate().barrier();
            }

            @Override
            public void close() {
                try {
                    e.stopProgress();
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
                e.quiet();
                delegate().close();
            }
        };
    }

    /** A team whose barrier asks the engine what to complete first; the teams split from it do the same. */
    private static final class EngineTeam extends ForwardingTeam {
        private final SlowPutEngine engine;
        private final boolean world;

        EngineTeam(Team t, SlowPutEngine engine, boolean world) {
            super(t);
            this.engine = engine;
            this.world = world;
        }

        @Override
        protected Team wrap(Team child) {
            return new EngineTeam(child, engine, false);
        }

        @Override
        public void barrier() {
            engine.completeForTeamBarrier(world);
            delegate().barrier();
        }

        @Override
        public void barrier(Stream stream) {
            stream.synchronize();
            barrier();
        }
    }
}
