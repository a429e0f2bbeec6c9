package dev.unicomm.conformance.broken;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import java.util.function.Function;

/**
 * A test-only backend: the real shm backend with its RMA replaced by a deliberately broken
 * decorator, under its own name, so the kit can show that the rules catch the breakage.
 */
abstract class DecoratedProvider extends ShmUnderAnotherName {
    private final Function<Rma, ForwardingRma> breakage;
    private final boolean barrierCompletesRma;

    DecoratedProvider(String name, Function<Rma, ForwardingRma> breakage) {
        this(name, breakage, true);
    }

    /** @param barrierCompletesRma false plants the fault "barrier does not complete RMA" */
    DecoratedProvider(String name, Function<Rma, ForwardingRma> breakage, boolean barrierCompletesRma) {
        super(name);
        this.breakage = breakage;
        this.barrierCompletesRma = barrierCompletesRma;
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        BackendCommunicator c = real.open(context);
        ForwardingRma rma = breakage.apply(c.rma());
        return new BackendCommunicator() {
            @Override
            public int rank() {
                return c.rank();
            }

            @Override
            public int size() {
                return c.size();
            }

            @Override
            public SymmetricHeap heap() {
                return c.heap();
            }

            @Override
            public Rma rma() {
                return rma;
            }

            @Override
            public Team world() {
                return c.world();
            }

            @Override
            public void barrier() {
                if (barrierCompletesRma)
                    rma.quiet(); // the barrier completes outstanding RMA, through the decorator's own quiet
                c.barrier();
            }

            @Override
            public boolean acceptsLocal(MemoryKind kind) {
                return c.acceptsLocal(kind);
            }

            @Override
            public void close() {
                rma.quiet();
                c.close();
            }
        };
    }
}
